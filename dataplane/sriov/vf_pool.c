/* SPDX-License-Identifier: BSD-3-Clause */
/* VF pools per physnet; see vf_pool.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "api.h"
#include "core/log.h"
#include "core/notify.h"
#include "files.h"
#include "sriov/vf_pool.h"
#include "validate.h"

#define VF_STATE_VERSION 1

PW_LOG_TYPE("sriov");

static struct vf_physnet physnets[VF_POOL_MAX_PHYSNETS];
static unsigned int n_physnets;
static struct vf_entry *entries;
static unsigned int n_entries;
static char state_dir[256];

static vf_pool_config_fn config_fn = sriov_nl_set_vf;

void vf_pool_set_config_fn(vf_pool_config_fn fn)
{
	config_fn = fn != NULL ? fn : sriov_nl_set_vf;
}

const char *vf_state_name(enum vf_state s)
{
	return s == VF_FREE ? "free" : s == VF_USED ? "used" : "unavailable";
}

/* ---- --physnets ------------------------------------------------------------ */

static const char physnets_example[] = "e.g. physnet2:enp1s0f0,physnet3:enp1s0f1#0-7";

static int parse_range(const char *item, const char *text, int *first, int *last, char *msg,
		       size_t len)
{
	char *end;
	long a, b;

	a = strtol(text, &end, 10);
	if (end == text || a < 0 || a > 65535 || (*end != '\0' && *end != '-'))
		goto bad;
	b = a;
	if (*end == '-') {
		const char *s = end + 1;

		b = strtol(s, &end, 10);
		if (end == s || *end != '\0' || b > 65535)
			goto bad;
	}
	if (a > b) {
		snprintf(msg, len, "\"%s\": VF range #%ld-%ld is backwards; give #%ld-%ld", item, a,
			 b, b, a);
		return -EINVAL;
	}
	*first = (int)a;
	*last = (int)b;
	return 0;
bad:
	snprintf(msg, len,
		 "\"%s\": \"#%s\" is not a VF range; give #first-last such as #0-7, or #N for "
		 "one VF",
		 item, text);
	return -EINVAL;
}

int vf_pool_parse(const char *spec, struct vf_physnet *out, unsigned int max, unsigned int *n,
		  char *msg, size_t len)
{
	char buf[2048], *save = NULL, *item;

	*n = 0;
	if (strlen(spec) >= sizeof(buf)) {
		snprintf(msg, len, "the list is %zu bytes, the limit is %zu", strlen(spec),
			 sizeof(buf) - 1);
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", spec);
	for (item = strtok_r(buf, ",", &save); item != NULL; item = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(item, ':'), *hash, whole[256], why[256];
		struct vf_physnet *p = NULL;
		struct vf_pf_range r = {.first = -1, .last = -1};

		snprintf(whole, sizeof(whole), "%s", item);
		if (colon == NULL) {
			snprintf(msg, len, "\"%s\" is not physnet:PF[#first-last]; %s", whole,
				 physnets_example);
			return -EINVAL;
		}
		*colon = '\0';
		if (validate_name("physnet", item, why, sizeof(why)) != 0) {
			snprintf(msg, len, "\"%s\": %s", whole, why);
			return -EINVAL;
		}
		hash = strchr(colon + 1, '#');
		if (hash != NULL) {
			*hash = '\0';
			if (parse_range(whole, hash + 1, &r.first, &r.last, msg, len) != 0)
				return -EINVAL;
		}
		if (validate_ifname("PF", colon + 1, why, sizeof(why)) != 0) {
			snprintf(msg, len, "\"%s\": %s", whole, why);
			return -EINVAL;
		}
		snprintf(r.pf, sizeof(r.pf), "%s", colon + 1);
		for (unsigned int i = 0; i < *n; i++) {
			for (unsigned int j = 0; j < out[i].n_pfs; j++) {
				if (strcmp(out[i].pfs[j].pf, r.pf) != 0)
					continue;
				if (strcmp(out[i].name, item) == 0)
					snprintf(msg, len,
						 "PF %s is listed twice in physnet %s; list it "
						 "once, with one #first-last range",
						 r.pf, item);
				else
					snprintf(msg, len,
						 "PF %s is in physnet %s and in physnet %s; a PF "
						 "belongs to one physnet",
						 r.pf, out[i].name, item);
				return -EINVAL;
			}
			if (strcmp(out[i].name, item) == 0)
				p = &out[i];
		}
		if (p == NULL) {
			if (*n == max) {
				snprintf(msg, len, "more than %u physnets", max);
				return -EINVAL;
			}
			p = &out[(*n)++];
			memset(p, 0, sizeof(*p));
			snprintf(p->name, sizeof(p->name), "%s", item);
		}
		if (p->n_pfs == VF_POOL_MAX_PFS) {
			snprintf(msg, len, "physnet %s has more than %d PFs", p->name,
				 VF_POOL_MAX_PFS);
			return -EINVAL;
		}
		p->pfs[p->n_pfs++] = r;
	}
	if (*n == 0) {
		snprintf(msg, len, "the list is empty; %s", physnets_example);
		return -EINVAL;
	}
	return 0;
}

void vf_pool_fini(void)
{
	free(entries);
	entries = NULL;
	n_entries = 0;
	n_physnets = 0;
	state_dir[0] = '\0';
}

int vf_pool_configure(const char *spec, char *msg, size_t len)
{
	struct vf_physnet nets[VF_POOL_MAX_PHYSNETS];
	struct vf_entry *es;
	unsigned int n, ne = 0;
	int rc;

	vf_pool_fini();
	if (spec == NULL || spec[0] == '\0')
		return 0;
	rc = vf_pool_parse(spec, nets, VF_POOL_MAX_PHYSNETS, &n, msg, len);
	if (rc != 0)
		return rc;
	es = calloc(VF_POOL_MAX_VFS, sizeof(*es));
	if (es == NULL) {
		snprintf(msg, len, "out of memory");
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < n; i++) {
		for (unsigned int j = 0; j < nets[i].n_pfs; j++) {
			struct vf_pf_range *r = &nets[i].pfs[j];
			struct sriov_pf pf;

			if (sriov_pf_get(r->pf, &pf, msg, len) != 0) {
				rc = -EINVAL;
				goto err;
			}
			snprintf(r->pf_pci, sizeof(r->pf_pci), "%s", pf.pci);
			if (pf.numvfs == 0) {
				snprintf(msg, len,
					 "PF %s (%s) has no VFs (sriov_numvfs is 0, up to %d "
					 "possible); create them with `echo %d > "
					 "%s/class/net/%s/device/sriov_numvfs`",
					 r->pf, pf.pci, pf.totalvfs, pf.totalvfs, sriov_root(),
					 r->pf);
				rc = -EINVAL;
				goto err;
			}
			if (r->first < 0) {
				r->first = 0;
				r->last = pf.numvfs - 1;
			} else if (r->last >= pf.numvfs) {
				snprintf(msg, len,
					 "%s:%s#%d-%d: the range goes beyond the PF's VFs 0-%d "
					 "(sriov_numvfs %d, sriov_totalvfs %d); give #%d-%d%s",
					 nets[i].name, r->pf, r->first, r->last, pf.numvfs - 1,
					 pf.numvfs, pf.totalvfs,
					 r->first < pf.numvfs ? r->first : 0, pf.numvfs - 1,
					 r->last < pf.totalvfs
					     ? " or create more VFs by writing sriov_numvfs"
					     : "");
				rc = -EINVAL;
				goto err;
			}
			for (int v = r->first; v <= r->last; v++) {
				struct vf_entry *e = &es[ne];

				if (ne == VF_POOL_MAX_VFS) {
					snprintf(msg, len, "more than %d VFs in the physnets",
						 VF_POOL_MAX_VFS);
					rc = -EINVAL;
					goto err;
				}
				rc = sriov_vf_get(&pf, v, &e->vf, msg, len);
				if (rc != 0) {
					rc = -EINVAL;
					goto err;
				}
				e->physnet = i;
				ne++;
			}
		}
	}
	memcpy(physnets, nets, sizeof(nets[0]) * n);
	n_physnets = n;
	entries = es;
	n_entries = ne;
	vf_pool_refresh();
	return 0;
err:
	free(es);
	return rc;
}

unsigned int vf_pool_physnet_count(void)
{
	return n_physnets;
}

const struct vf_physnet *vf_pool_physnet(unsigned int i)
{
	return i < n_physnets ? &physnets[i] : NULL;
}

int vf_pool_physnet_find(const char *name)
{
	for (unsigned int i = 0; i < n_physnets; i++)
		if (strcmp(physnets[i].name, name) == 0)
			return (int)i;
	return -1;
}

unsigned int vf_pool_entry_count(void)
{
	return n_entries;
}

const struct vf_entry *vf_pool_entry(unsigned int i)
{
	return i < n_entries ? &entries[i] : NULL;
}

/* ---- states ---------------------------------------------------------------- */

static void refresh_one(struct vf_entry *e)
{
	if (sriov_vf_refresh(&e->vf) != 0) {
		snprintf(e->reason, sizeof(e->reason), "the device is gone from %s/bus/pci/devices",
			 sriov_root());
		if (e->state != VF_USED)
			e->state = VF_UNAVAILABLE;
		return;
	}
	e->reason[0] = '\0';
	if (e->state == VF_USED) {
		if (strcmp(e->vf.driver, SRIOV_VFIO) != 0)
			snprintf(e->reason, sizeof(e->reason),
				 "allocated, but bound to %s instead of vfio-pci",
				 e->vf.driver[0] ? e->vf.driver : "no driver");
		return;
	}
	e->state = VF_UNAVAILABLE;
	if (strcmp(e->vf.driver, SRIOV_VFIO) == 0)
		snprintf(e->reason, sizeof(e->reason),
			 "bound to vfio-pci but not allocated by podwired (another DPDK "
			 "application may use it)");
	else if (e->vf.netdev_up)
		snprintf(e->reason, sizeof(e->reason), "in use by the kernel: its netdev %s is up",
			 e->vf.netdev);
	else if (e->vf.iommu_group < 0 && !sriov_noiommu())
		snprintf(e->reason, sizeof(e->reason),
			 "no IOMMU group: enable the IOMMU (intel_iommu=on iommu=pt) or "
			 "vfio's noiommu mode");
	else
		e->state = VF_FREE;
}

void vf_pool_refresh(void)
{
	for (unsigned int i = 0; i < n_entries; i++)
		refresh_one(&entries[i]);
}

/* ---- the state file ---------------------------------------------------------- */

void vf_entry_conf_json(const struct vf_entry *e, cJSON *o, bool nulls)
{
	char mac[18];

	if (e->conf.vlan >= 0)
		cJSON_AddNumberToObject(o, API_F_VLAN, e->conf.vlan);
	else if (nulls)
		cJSON_AddNullToObject(o, API_F_VLAN);
	if (e->conf.set_mac) {
		format_mac(e->conf.mac, mac);
		cJSON_AddStringToObject(o, API_F_MAC, mac);
	} else if (nulls) {
		cJSON_AddNullToObject(o, API_F_MAC);
	}
	if (e->conf.spoofchk >= 0)
		cJSON_AddBoolToObject(o, API_F_SPOOFCHK, e->conf.spoofchk);
	if (e->conf.trust >= 0)
		cJSON_AddBoolToObject(o, API_F_TRUST, e->conf.trust);
	cJSON_AddStringToObject(o, "vf_config", e->vf_config);
}

static cJSON *entry_record(const struct vf_entry *e)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, API_F_PCI, e->vf.pci);
	cJSON_AddStringToObject(o, API_F_PHYSNET, physnets[e->physnet].name);
	cJSON_AddStringToObject(o, "pf", e->vf.pf);
	cJSON_AddNumberToObject(o, "vf_index", e->vf.vf_index);
	cJSON_AddStringToObject(o, API_F_OWNER, e->owner);
	cJSON_AddStringToObject(o, "original_driver", e->orig_driver);
	vf_entry_conf_json(e, o, false);
	return o;
}

static int save(char *msg, size_t len)
{
	cJSON *doc, *a;
	int rc;

	if (state_dir[0] == '\0')
		return 0; /* no state dir given (unit tests of allocation alone) */
	doc = cJSON_CreateObject();
	cJSON_AddNumberToObject(doc, "version", VF_STATE_VERSION);
	a = cJSON_AddArrayToObject(doc, "vfs");
	for (unsigned int i = 0; i < n_entries; i++)
		if (entries[i].state == VF_USED)
			cJSON_AddItemToArray(a, entry_record(&entries[i]));
	rc = state_file_write(state_dir, VF_POOL_FILE, doc, msg, len);
	cJSON_Delete(doc);
	/* Every change of an allocation is saved: this is where it is told. */
	notify_publish(NOTIFY_VF_POOL_CHANGED, NULL);
	return rc;
}

static struct vf_entry *find_pci(const char *pci)
{
	for (unsigned int i = 0; i < n_entries; i++)
		if (strcmp(entries[i].vf.pci, pci) == 0)
			return &entries[i];
	return NULL;
}

static const char *str_field(const cJSON *o, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The optional settings of a record; false when one is malformed. */
static bool record_conf(const cJSON *o, struct sriov_vf_conf *c)
{
	const cJSON *v;
	char why[256];

	*c = (struct sriov_vf_conf){.vlan = -1, .spoofchk = -1, .trust = -1};
	v = cJSON_GetObjectItemCaseSensitive(o, API_F_VLAN);
	if (v != NULL) {
		if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > API_VLAN_MAX)
			return false;
		c->vlan = (int)v->valuedouble;
	}
	v = cJSON_GetObjectItemCaseSensitive(o, API_F_MAC);
	if (v != NULL) {
		if (!cJSON_IsString(v) ||
		    validate_mac("record", v->valuestring, c->mac, why, sizeof(why)) != 0)
			return false;
		c->set_mac = true;
	}
	v = cJSON_GetObjectItemCaseSensitive(o, API_F_SPOOFCHK);
	if (v != NULL) {
		if (!cJSON_IsBool(v))
			return false;
		c->spoofchk = cJSON_IsTrue(v);
	}
	v = cJSON_GetObjectItemCaseSensitive(o, API_F_TRUST);
	if (v != NULL) {
		if (!cJSON_IsBool(v))
			return false;
		c->trust = cJSON_IsTrue(v);
	}
	return true;
}

/* One record of vfs.json; true when the allocation is kept. */
static bool restore_record(const char *file, const cJSON *o)
{
	const char *pci = str_field(o, API_F_PCI), *owner = str_field(o, API_F_OWNER);
	const char *physnet = str_field(o, API_F_PHYSNET), *orig = str_field(o, "original_driver");
	const char *vfc = str_field(o, "vf_config");
	struct sriov_vf_conf conf;
	struct vf_entry *e;

	if (pci == NULL || owner == NULL || owner[0] == '\0' || strlen(owner) > VF_OWNER_MAX ||
	    orig == NULL || strlen(orig) >= SRIOV_DRV_LEN || !record_conf(o, &conf)) {
		char *text = cJSON_PrintUnformatted(o);

		LOG(WARNING, "%s: dropping a malformed record %s", file, text ? text : "?");
		free(text);
		return false;
	}
	e = find_pci(pci);
	if (e == NULL) {
		LOG(WARNING,
		    "%s: VF %s (owner %s) is in no physnet of --physnets now; forgetting its "
		    "allocation (its driver is left as it is)",
		    file, pci, owner);
		return false;
	}
	if (e->state == VF_USED) {
		LOG(WARNING,
		    "%s: VF %s is listed twice; keeping it for owner %s, dropping owner %s", file,
		    pci, e->owner, owner);
		return false;
	}
	if (physnet == NULL || strcmp(physnet, physnets[e->physnet].name) != 0)
		LOG(NOTICE, "%s: VF %s was allocated in physnet %s, now in physnet %s", file, pci,
		    physnet ? physnet : "?", physnets[e->physnet].name);
	sriov_vf_refresh(&e->vf);
	if (strcmp(e->vf.driver, SRIOV_VFIO) != 0) {
		LOG(WARNING,
		    "%s: VF %s was allocated to %s but is now bound to %s, not vfio-pci (a "
		    "reboot, or someone rebound it); releasing the allocation",
		    file, pci, owner, e->vf.driver[0] ? e->vf.driver : "no driver");
		return false;
	}
	e->state = VF_USED;
	snprintf(e->owner, sizeof(e->owner), "%s", owner);
	snprintf(e->orig_driver, sizeof(e->orig_driver), "%s", orig);
	snprintf(e->vf_config, sizeof(e->vf_config), "%s", vfc ? vfc : "");
	e->conf = conf;
	return true;
}

int vf_pool_restore(const char *dir)
{
	char msg[768], file[300];
	const cJSON *a, *o;
	cJSON *doc;
	int rc, kept = 0, dropped = 0;

	snprintf(state_dir, sizeof(state_dir), "%s", dir);
	snprintf(file, sizeof(file), "%s/%s", dir, VF_POOL_FILE);
	rc = state_file_read(dir, VF_POOL_FILE, &doc, msg, sizeof(msg));
	if (rc == -ENOENT)
		return 0;
	if (rc != 0) {
		LOG(WARNING, "%s; VF allocations are not restored (fix or remove the file)", msg);
		return rc;
	}
	a = cJSON_GetObjectItemCaseSensitive(doc, "vfs");
	if (!cJSON_IsArray(a)) {
		LOG(WARNING,
		    "%s has no \"vfs\" array; VF allocations are not restored (fix or remove "
		    "the file)",
		    file);
		cJSON_Delete(doc);
		return -EBADMSG;
	}
	cJSON_ArrayForEach (o, a) {
		if (restore_record(file, o))
			kept++;
		else
			dropped++;
	}
	cJSON_Delete(doc);
	vf_pool_refresh();
	if (dropped > 0 && save(msg, sizeof(msg)) != 0)
		LOG(WARNING, "%s", msg);
	if (kept > 0 || dropped > 0)
		LOG(NOTICE, "restored %d VF allocation(s) from %s, dropped %d", kept, file,
		    dropped);
	return kept;
}

/* ---- allocation -------------------------------------------------------------- */

static void apply_conf(struct vf_entry *e, const struct sriov_vf_conf *c, int *rc, char *msg,
		       size_t len)
{
	char why[512];

	*rc = 0;
	if (sriov_vf_conf_empty(c)) {
		snprintf(e->vf_config, sizeof(e->vf_config), "none requested");
		return;
	}
	*rc = config_fn(e->vf.pf, e->vf.vf_index, c, why, sizeof(why));
	if (*rc == -ENODEV) {
		*rc = 0;
		snprintf(e->vf_config, sizeof(e->vf_config), "skipped: PF %s has no kernel netdev",
			 e->vf.pf);
	} else if (*rc == 0) {
		snprintf(e->vf_config, sizeof(e->vf_config), "applied through PF %s", e->vf.pf);
	} else {
		snprintf(msg, len, "VF %s: %s", e->vf.pci, why);
	}
}

/* Why no VF of physnet p is free: counts and the first reasons. */
static void exhausted_msg(unsigned int p, char *msg, size_t len)
{
	unsigned int total = 0, used = 0, unavail = 0;
	size_t off;

	for (unsigned int i = 0; i < n_entries; i++) {
		if (entries[i].physnet != p)
			continue;
		total++;
		used += entries[i].state == VF_USED;
		unavail += entries[i].state == VF_UNAVAILABLE;
	}
	off = (size_t)snprintf(msg, len,
			       "physnet %s has no free VF: %u VF(s), %u used, %u unavailable",
			       physnets[p].name, total, used, unavail);
	for (unsigned int i = 0, shown = 0; i < n_entries && shown < 3 && off < len; i++) {
		if (entries[i].physnet != p || entries[i].state != VF_UNAVAILABLE)
			continue;
		off += (size_t)snprintf(msg + off, len - off, "%s%s: %s", shown ? "; " : " (",
					entries[i].vf.pci, entries[i].reason);
		shown++;
		if (off < len && (shown == 3 || shown == unavail))
			off += (size_t)snprintf(msg + off, len - off, ")");
	}
	if (off < len)
		snprintf(msg + off, len - off,
			 "; release one (`podwirectl vf release`) or add "
			 "PFs or VFs to the physnet");
}

int vf_pool_alloc(const char *physnet, const char *owner, const struct sriov_vf_conf *conf,
		  const struct vf_entry **out, char *msg, size_t len)
{
	int p = vf_pool_physnet_find(physnet), rc;
	char rmsg[512], orig[SRIOV_DRV_LEN];
	struct vf_entry *e = NULL;

	if (p < 0) {
		char list[512] = "";

		for (unsigned int i = 0; i < n_physnets; i++) {
			size_t n = strlen(list);

			snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "",
				 physnets[i].name);
		}
		snprintf(msg, len,
			 "physnet \"%s\" is not configured; podwired knows %s (start it with "
			 "--physnets %s:PF)",
			 physnet, n_physnets ? list : "none", physnet);
		return -ENOENT;
	}
	if (!sriov_vfio_loaded()) {
		snprintf(msg, len,
			 "physnet %s: the vfio-pci driver is not loaded (no %s/bus/pci/drivers/"
			 "vfio-pci); run `modprobe vfio-pci`",
			 physnet, sriov_root());
		return -ENOPKG;
	}
	vf_pool_refresh();
	/* An owner holds one VF per physnet (CNI: one per attachment): a
	 * retried request gets its VF again instead of a second one that
	 * nobody would release. */
	for (unsigned int i = 0; i < n_entries; i++) {
		if (entries[i].state == VF_USED && entries[i].physnet == (unsigned int)p &&
		    strcmp(entries[i].owner, owner) == 0) {
			*out = &entries[i];
			return 0;
		}
	}
	for (unsigned int i = 0; i < n_entries; i++) {
		if (entries[i].physnet == (unsigned int)p && entries[i].state == VF_FREE) {
			e = &entries[i];
			break;
		}
	}
	if (e == NULL) {
		exhausted_msg((unsigned int)p, msg, len);
		return -ENOSPC;
	}
	rc = sriov_bind_vfio(&e->vf, orig, sizeof(orig), msg, len);
	if (rc != 0) {
		refresh_one(e);
		return rc;
	}
	apply_conf(e, conf, &rc, msg, len);
	if (rc == 0) {
		e->state = VF_USED;
		snprintf(e->owner, sizeof(e->owner), "%s", owner);
		snprintf(e->orig_driver, sizeof(e->orig_driver), "%s", orig);
		e->conf = *conf;
		e->reason[0] = '\0';
		rc = save(rmsg, sizeof(rmsg));
		if (rc != 0) {
			snprintf(msg, len, "VF %s: not allocated, the state was not saved: %s",
				 e->vf.pci, rmsg);
			rc = -ECANCELED;
			e->state = VF_FREE;
			e->owner[0] = '\0';
		}
	}
	if (rc != 0) {
		if (sriov_restore_driver(&e->vf, orig, rmsg, sizeof(rmsg)) != 0) {
			size_t n = strlen(msg);

			snprintf(msg + n, len - n, "; giving the VF back to %s also failed: %s",
				 orig[0] ? orig : "no driver", rmsg);
		}
		refresh_one(e);
		return rc;
	}
	*out = e;
	return 0;
}

/* Settings an allocation applied, back to the kernel's defaults. */
static void reset_conf(struct vf_entry *e)
{
	struct sriov_vf_conf c = {.vlan = -1, .spoofchk = -1, .trust = -1};
	char why[512];
	int rc;

	if (strncmp(e->vf_config, "applied", 7) != 0 || sriov_vf_conf_empty(&e->conf))
		return;
	if (e->conf.vlan > 0)
		c.vlan = 0;
	if (e->conf.set_mac)
		c.set_mac = true; /* all zero: the VF picks its own */
	if (e->conf.spoofchk == 0)
		c.spoofchk = 1;
	if (e->conf.trust == 1)
		c.trust = 0;
	if (sriov_vf_conf_empty(&c))
		return;
	rc = config_fn(e->vf.pf, e->vf.vf_index, &c, why, sizeof(why));
	if (rc != 0 && rc != -ENODEV)
		LOG(WARNING, "VF %s: resetting its settings on PF %s failed: %s", e->vf.pci,
		    e->vf.pf, why);
}

static int release_one(struct vf_entry *e, void (*cb)(const struct vf_entry *e, void *arg),
		       void *arg, char *msg, size_t len)
{
	int rc;

	reset_conf(e);
	rc = sriov_restore_driver(&e->vf, e->orig_driver, msg, len);
	if (rc != 0 && strcmp(e->vf.driver, SRIOV_VFIO) == 0)
		return rc; /* still on vfio-pci: stays allocated */
	if (rc != 0)
		LOG(WARNING, "%s; VF %s is released anyway (it left vfio-pci)", msg, e->vf.pci);
	if (cb != NULL)
		cb(e, arg);
	e->state = VF_FREE;
	e->owner[0] = '\0';
	e->orig_driver[0] = '\0';
	e->vf_config[0] = '\0';
	e->conf = (struct sriov_vf_conf){.vlan = -1, .spoofchk = -1, .trust = -1};
	refresh_one(e);
	return 0;
}

int vf_pool_release(const char *pci, const char *owner,
		    void (*cb)(const struct vf_entry *e, void *arg), void *arg, char *msg,
		    size_t len)
{
	char smsg[512], one[512];
	int rc = 0, n = 0;

	msg[0] = '\0';
	for (unsigned int i = 0; i < n_entries; i++) {
		struct vf_entry *e = &entries[i];
		int r;

		if (e->state != VF_USED)
			continue;
		if (pci != NULL ? strcmp(e->vf.pci, pci) != 0 : strcmp(e->owner, owner) != 0)
			continue;
		r = release_one(e, cb, arg, one, sizeof(one));
		if (r == 0) {
			n++;
		} else if (rc == 0) {
			rc = r;
			snprintf(msg, len, "VF %s stays allocated to %s: %s", e->vf.pci, e->owner,
				 one);
		}
	}
	if (n > 0 && save(smsg, sizeof(smsg)) != 0) {
		if (rc == 0) {
			snprintf(msg, len, "released, but %s", smsg);
			rc = -ECANCELED;
		}
	}
	return rc;
}
