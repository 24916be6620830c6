/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of dataplane/vf_pool.c against the fake sysfs tree of
 * tests/sriov/fake_kernel.c (its PCI core runs in process from sriov.c's
 * write hook): --physnets, discovery, allocation until exhaustion, release,
 * persistence across a restart, and that a failed request changes nothing. */
#include <errno.h>
#include <stdio.h>

#include <rte_log.h>

#include <cjson/cJSON.h>

#include "../sriov/fake_kernel.h"
#include "api/registry.h"
#include "core/notify.h"
#include "files.h"
#include "model/port_conf.h"
#include "unit.h"
#include "sriov/vf_pool.h"

static char base[64]; /* scratch directory, made by main */
static char root[128], state[128];
static int n_trees;

static int hook(const char *path, const char *value)
{
	return fk_write(root, path, value);
}

/* The VF settings "kernel": records the last call, answers config_rc. */
static int config_rc;
static int config_calls;
static struct sriov_vf_conf config_last;
static int config_last_vf;

static int config_fake(const char *pf, int vf, const struct sriov_vf_conf *c, char *msg, size_t len)
{
	config_calls++;
	config_last = *c;
	config_last_vf = vf;
	if (config_rc == -ENODEV)
		snprintf(msg, len, "PF %s has no kernel netdev", pf);
	else if (config_rc != 0)
		snprintf(msg, len, "the kernel refused VF %d settings on PF %s: %s", vf, pf,
			 strerror(-config_rc));
	return config_rc;
}

/* What sriov/ logs (the podwire.sriov rte_log type), kept to be read. */
static char logged[8192];

static ssize_t log_capture(void *cookie, const char *buf, size_t size)
{
	size_t n = strlen(logged);

	(void)cookie;
	snprintf(logged + n, sizeof(logged) - n, "%.*s", (int)size, buf);
	return (ssize_t)size;
}

/* A fresh tree and state dir; the pool configured with spec. */
static void setup(struct fk_opts o, const char *spec)
{
	char msg[1024];

	snprintf(root, sizeof(root), "%s/sys%d", base, n_trees);
	snprintf(state, sizeof(state), "%s/state%d", base, n_trees++);
	mkdir(root, 0755);
	mkdir(state, 0700);
	o.fifos = false;
	CU_ASSERT_FATAL(fk_create(root, &o) == 0);
	sriov_set_root(root);
	sriov_set_write_hook(hook);
	sriov_set_timeout_ms(100);
	vf_pool_set_config_fn(config_fake);
	config_rc = -ENODEV; /* PFs of the fake tree have no kernel netdev */
	config_calls = 0;
	logged[0] = '\0';
	msg[0] = '\0';
	ASSERT_INT_EQ(vf_pool_configure(spec, msg, sizeof(msg)), 0);
	ASSERT_STR_EQ(msg, "");
	ASSERT_INT_EQ(vf_pool_restore(state), 0);
}

static const char *driver_of(const char *bdf)
{
	static char drv[64];

	return sriov_pci_driver(bdf, drv, sizeof(drv)) == 0 ? drv : "(no device)";
}

/* Counts of a physnet's VFs in a state. */
static unsigned int count(const char *physnet, enum vf_state st)
{
	int p = vf_pool_physnet_find(physnet);
	unsigned int n = 0;

	for (unsigned int i = 0; i < vf_pool_entry_count(); i++)
		n += (int)vf_pool_entry(i)->physnet == p && vf_pool_entry(i)->state == st;
	return n;
}

static const struct vf_entry *by_pci(const char *pci)
{
	for (unsigned int i = 0; i < vf_pool_entry_count(); i++)
		if (strcmp(vf_pool_entry(i)->vf.pci, pci) == 0)
			return vf_pool_entry(i);
	return NULL;
}

static const struct sriov_vf_conf no_conf = {.vlan = -1, .spoofchk = -1, .trust = -1};

static int alloc(const char *physnet, const char *owner, const struct vf_entry **e, char *msg,
		 size_t len)
{
	msg[0] = '\0';
	return vf_pool_alloc(physnet, owner, &no_conf, e, msg, len);
}

/* The whole state file, "" when absent. */
static const char *state_file(void)
{
	static char buf[16384];
	char path[256];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", state, VF_POOL_FILE);
	f = fopen(path, "r");
	if (f != NULL) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

/* Everything a failed request must leave alone: states, owners, drivers,
 * the state file. */
static void snapshot(char *buf, size_t len)
{
	size_t off = 0;

	vf_pool_refresh();
	for (unsigned int i = 0; i < vf_pool_entry_count() && off < len; i++) {
		const struct vf_entry *e = vf_pool_entry(i);

		off += (size_t)snprintf(buf + off, len - off, "%s %s %s %s|", e->vf.pci,
					vf_state_name(e->state), e->owner, driver_of(e->vf.pci));
	}
	if (off < len && strlen(state_file()) < len - off)
		memcpy(buf + off, state_file(), strlen(state_file()) + 1);
}

static void test_parse_good(void)
{
	struct vf_physnet p[VF_POOL_MAX_PHYSNETS];
	unsigned int n;
	char msg[512];

	ASSERT_INT_EQ(
	    vf_pool_parse("physnet2:enp1s0f0,physnet3:enp1s0f1#0-7", p, 16, &n, msg, sizeof(msg)),
	    0);
	ASSERT_INT_EQ(n, 2);
	ASSERT_STR_EQ(p[0].name, "physnet2");
	ASSERT_INT_EQ(p[0].n_pfs, 1);
	ASSERT_STR_EQ(p[0].pfs[0].pf, "enp1s0f0");
	ASSERT_INT_EQ(p[0].pfs[0].first, -1);
	ASSERT_STR_EQ(p[1].pfs[0].pf, "enp1s0f1");
	ASSERT_INT_EQ(p[1].pfs[0].first, 0);
	ASSERT_INT_EQ(p[1].pfs[0].last, 7);

	/* Several PFs in one physnet; #N is one VF. */
	ASSERT_INT_EQ(
	    vf_pool_parse("physnet2:enp1s0f0#2,physnet2:enp2s0f0", p, 16, &n, msg, sizeof(msg)), 0);
	ASSERT_INT_EQ(n, 1);
	ASSERT_INT_EQ(p[0].n_pfs, 2);
	ASSERT_INT_EQ(p[0].pfs[0].first, 2);
	ASSERT_INT_EQ(p[0].pfs[0].last, 2);
	ASSERT_STR_EQ(p[0].pfs[1].pf, "enp2s0f0");
}

static void test_parse_bad(void)
{
	static const struct {
		const char *spec, *says;
	} bad[] = {
	    {"physnet2", "\"physnet2\" is not physnet:PF[#first-last]"},
	    {"physnet2:", "interface name \"\" is not valid"},
	    {":enp1s0f0", "physnet name is empty"},
	    {"phys net:enp1s0f0", "has character ' '"},
	    {"physnet2:enp1s0f0#", "\"#\" is not a VF range"},
	    {"physnet2:enp1s0f0#x-2", "\"#x-2\" is not a VF range"},
	    {"physnet2:enp1s0f0#1-", "\"#1-\" is not a VF range"},
	    {"physnet2:enp1s0f0#-1", "\"#-1\" is not a VF range"},
	    {"physnet2:enp1s0f0#3-1", "VF range #3-1 is backwards; give #1-3"},
	    {"physnet2:enp1s0f0,physnet3:enp1s0f0", "PF enp1s0f0 is in physnet physnet2 and in"},
	    {"physnet2:enp1s0f0,physnet2:enp1s0f0#1", "listed twice in physnet physnet2"},
	    {"physnet2:averyveryverylongifname", "interface name"},
	    {"", "the list is empty"},
	    {",", "the list is empty"},
	};
	struct vf_physnet p[VF_POOL_MAX_PHYSNETS];
	unsigned int n;
	char msg[512];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		msg[0] = '\0';
		ASSERT_INT_EQ(vf_pool_parse(bad[i].spec, p, 16, &n, msg, sizeof(msg)), -EINVAL);
		ASSERT_CONTAINS(msg, bad[i].says);
	}
}

/* Start-up refusals that need sysfs, each with a message and no pool. */
static void test_configure_errors(void)
{
	static const struct {
		const char *spec, *says;
	} bad[] = {
	    {"physnet2:enp9s0", "unknown PF \"enp9s0\""},
	    {"physnet2:eno1", "PF \"eno1\" (0000:00:19.0) has no SR-IOV"},
	    {"physnet2:enp1s0f1#0-7",
	     "physnet2:enp1s0f1#0-7: the range goes beyond the PF's VFs 0-1 (sriov_numvfs 2, "
	     "sriov_totalvfs 8); give #0-1 or create more VFs"},
	    {"physnet2:enp1s0f0#2-9", "give #2-3"},
	    {"physnet2:enp1s0f0,physnet3:enp1s0f0", "a PF belongs to one physnet"},
	    {"physnet2:enp1s0f0,physnet3:enp1s0f1#5", "range goes beyond"},
	};
	char msg[1024], path[256];
	FILE *f;

	setup((struct fk_opts){0}, "");
	ASSERT_INT_EQ(vf_pool_physnet_count(), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		msg[0] = '\0';
		ASSERT_INT_EQ(vf_pool_configure(bad[i].spec, msg, sizeof(msg)), -EINVAL);
		ASSERT_CONTAINS(msg, bad[i].says);
		ASSERT_INT_EQ(vf_pool_physnet_count(), 0);
		ASSERT_INT_EQ(vf_pool_entry_count(), 0);
	}
	/* A PF whose VFs were not created. */
	snprintf(path, sizeof(path), "%s/class/net/enp1s0f1/device/sriov_numvfs", root);
	f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs("0\n", f);
	fclose(f);
	ASSERT_INT_EQ(vf_pool_configure("physnet3:enp1s0f1", msg, sizeof(msg)), -EINVAL);
	ASSERT_CONTAINS(msg, "PF enp1s0f1 (0000:01:00.1) has no VFs");
	ASSERT_CONTAINS(msg, "sriov_numvfs");
}

static void test_discovery(void)
{
	const struct vf_physnet *p;

	setup((struct fk_opts){.no_iommu = {"0000:01:10.4"},
			       .n_no_iommu = 1,
			       .netdev_up = {"enp1s0f0v3"},
			       .n_netdev_up = 1},
	      "physnet2:enp1s0f0,physnet3:enp1s0f1#1");
	ASSERT_INT_EQ(vf_pool_physnet_count(), 2);
	ASSERT_INT_EQ(vf_pool_entry_count(), 5);
	p = vf_pool_physnet(0);
	ASSERT_STR_EQ(p->name, "physnet2");
	ASSERT_STR_EQ(p->pfs[0].pf_pci, "0000:01:00.0");
	ASSERT_INT_EQ(p->pfs[0].first, 0);
	ASSERT_INT_EQ(p->pfs[0].last, 3);
	ASSERT_INT_EQ(count("physnet2", VF_FREE), 2);
	ASSERT_INT_EQ(count("physnet2", VF_UNAVAILABLE), 2);
	ASSERT_CONTAINS(by_pci("0000:01:10.4")->reason, "no IOMMU group");
	ASSERT_CONTAINS(by_pci("0000:01:10.6")->reason, "netdev enp1s0f0v3 is up");
	ASSERT_STR_EQ(by_pci("0000:01:10.0")->vf.driver, "iavf");
	ASSERT_INT_EQ(by_pci("0000:01:10.2")->vf.iommu_group, 11);
	/* The range: only VF 1 of enp1s0f1. */
	ASSERT_INT_EQ(count("physnet3", VF_FREE), 1);
	CU_ASSERT_PTR_NULL(by_pci("0000:01:11.0"));
	ASSERT_INT_EQ(by_pci("0000:01:11.2")->vf.vf_index, 1);
	ASSERT_INT_EQ(vf_pool_physnet_find("physnet3"), 1);
	ASSERT_INT_EQ(vf_pool_physnet_find("nope"), -1);
}

static void test_alloc_until_exhausted(void)
{
	const struct vf_entry *e;
	char msg[1024], before[32768], after[32768];

	setup((struct fk_opts){.netdev_up = {"0000:01:10.6"}, .n_netdev_up = 1},
	      "physnet2:enp1s0f0,physnet3:enp1s0f1");
	ASSERT_INT_EQ(alloc("physnet2", "c1/net1", &e, msg, sizeof(msg)), 0);
	ASSERT_STR_EQ(e->vf.pci, "0000:01:10.0");
	ASSERT_STR_EQ(e->owner, "c1/net1");
	ASSERT_STR_EQ(e->orig_driver, "iavf");
	ASSERT_STR_EQ(e->vf.driver, "vfio-pci");
	ASSERT_STR_EQ(e->vf_config, "none requested");
	ASSERT_INT_EQ(config_calls, 0);
	/* The same owner again: the same VF, not a second one. */
	ASSERT_INT_EQ(alloc("physnet2", "c1/net1", &e, msg, sizeof(msg)), 0);
	ASSERT_STR_EQ(e->vf.pci, "0000:01:10.0");
	ASSERT_INT_EQ(count("physnet2", VF_USED), 1);
	ASSERT_INT_EQ(alloc("physnet2", "c2/net1", &e, msg, sizeof(msg)), 0);
	ASSERT_STR_EQ(e->vf.pci, "0000:01:10.2");
	ASSERT_INT_EQ(alloc("physnet2", "c3/net1", &e, msg, sizeof(msg)), 0);
	ASSERT_STR_EQ(e->vf.pci, "0000:01:10.4");
	ASSERT_INT_EQ(count("physnet2", VF_USED), 3);

	snapshot(before, sizeof(before));
	ASSERT_INT_EQ(alloc("physnet2", "c4/net1", &e, msg, sizeof(msg)), -ENOSPC);
	ASSERT_CONTAINS(msg, "physnet physnet2 has no free VF: 4 VF(s), 3 used, 1 unavailable");
	ASSERT_CONTAINS(msg, "0000:01:10.6: in use by the kernel: its netdev enp1s0f0v3 is up");
	snapshot(after, sizeof(after));
	ASSERT_STR_EQ(after, before);
	/* Other physnets are not affected. */
	ASSERT_INT_EQ(alloc("physnet3", "c4/net1", &e, msg, sizeof(msg)), 0);
	ASSERT_STR_EQ(e->vf.pci, "0000:01:11.0");

	snapshot(before, sizeof(before));
	ASSERT_INT_EQ(alloc("physnet9", "c5/net1", &e, msg, sizeof(msg)), -ENOENT);
	ASSERT_CONTAINS(msg, "physnet \"physnet9\" is not configured");
	ASSERT_CONTAINS(msg, "physnet2, physnet3");
	snapshot(after, sizeof(after));
	ASSERT_STR_EQ(after, before);
}

static void test_alloc_without_vfio(void)
{
	const struct vf_entry *e;
	char msg[1024], before[32768], after[32768];

	setup((struct fk_opts){.no_vfio = true}, "physnet2:enp1s0f0");
	snapshot(before, sizeof(before));
	ASSERT_INT_EQ(alloc("physnet2", "c1/net1", &e, msg, sizeof(msg)), -ENOPKG);
	ASSERT_CONTAINS(msg, "modprobe vfio-pci");
	snapshot(after, sizeof(after));
	ASSERT_STR_EQ(after, before);
	ASSERT_INT_EQ(count("physnet2", VF_FREE), 4);
}

/* Every VF lacks its IOMMU group: the error says so. */
static void test_alloc_without_iommu(void)
{
	const struct vf_entry *e;
	char msg[1024];

	setup((struct fk_opts){.no_iommu = {"0000:01:11.0", "0000:01:11.2"}, .n_no_iommu = 2},
	      "physnet3:enp1s0f1");
	ASSERT_INT_EQ(alloc("physnet3", "c1/net1", &e, msg, sizeof(msg)), -ENOSPC);
	ASSERT_CONTAINS(msg, "2 unavailable");
	ASSERT_CONTAINS(msg, "no IOMMU group: enable the IOMMU");
	ASSERT_STR_EQ(driver_of("0000:01:11.0"), "iavf");
}

static void test_vf_config(void)
{
	struct sriov_vf_conf c = {
	    .vlan = 100, .spoofchk = 0, .trust = 1, .set_mac = true, .mac = {2, 0, 0, 0, 0, 1}};
	const struct vf_entry *e;
	char msg[1024], before[32768], after[32768];

	setup((struct fk_opts){0}, "physnet2:enp1s0f0");
	/* No kernel netdev for the PF: skipped, and said so. */
	ASSERT_INT_EQ(vf_pool_alloc("physnet2", "a", &c, &e, msg, sizeof(msg)), 0);
	ASSERT_STR_EQ(e->vf_config, "skipped: PF enp1s0f0 has no kernel netdev");
	ASSERT_INT_EQ(config_calls, 1);

	/* Applied through the PF, for the VF's number. */
	config_rc = 0;
	ASSERT_INT_EQ(vf_pool_alloc("physnet2", "b", &c, &e, msg, sizeof(msg)), 0);
	ASSERT_STR_EQ(e->vf_config, "applied through PF enp1s0f0");
	ASSERT_INT_EQ(config_last_vf, 1);
	ASSERT_INT_EQ(config_last.vlan, 100);
	ASSERT_INT_EQ(config_last.spoofchk, 0);
	ASSERT_INT_EQ(config_last.trust, 1);
	CU_ASSERT_TRUE(config_last.set_mac);
	ASSERT_CONTAINS(state_file(), "\"vlan\":\t100");
	ASSERT_CONTAINS(state_file(), "\"mac\":\t\"02:00:00:00:00:01\"");

	/* The kernel refuses: the binding is rolled back, nothing changed. */
	config_rc = -EOPNOTSUPP;
	snapshot(before, sizeof(before));
	ASSERT_INT_EQ(vf_pool_alloc("physnet2", "c", &c, &e, msg, sizeof(msg)), -EOPNOTSUPP);
	ASSERT_CONTAINS(msg, "VF 0000:01:10.4: the kernel refused VF 2 settings on PF enp1s0f0");
	snapshot(after, sizeof(after));
	ASSERT_STR_EQ(after, before);
	ASSERT_STR_EQ(driver_of("0000:01:10.4"), "iavf");
	ASSERT_STR_EQ(by_pci("0000:01:10.4")->vf.netdev, "enp1s0f0v2");

	/* Release resets what was applied: VLAN 0, spoof check on, trust off. */
	config_rc = 0;
	config_calls = 0;
	ASSERT_INT_EQ(vf_pool_release("0000:01:10.2", NULL, NULL, NULL, msg, sizeof(msg)), 0);
	ASSERT_INT_EQ(config_calls, 1);
	ASSERT_INT_EQ(config_last_vf, 1);
	ASSERT_INT_EQ(config_last.vlan, 0);
	ASSERT_INT_EQ(config_last.spoofchk, 1);
	ASSERT_INT_EQ(config_last.trust, 0);
	/* ... but not what was skipped. */
	config_calls = 0;
	ASSERT_INT_EQ(vf_pool_release("0000:01:10.0", NULL, NULL, NULL, msg, sizeof(msg)), 0);
	ASSERT_INT_EQ(config_calls, 0);
}

static void count_released(const struct vf_entry *e, void *arg)
{
	char *list = arg;
	size_t n = strlen(list);

	snprintf(list + n, 256 - n, "%s(%s,%s) ", e->vf.pci, e->owner, e->vf.driver);
}

static void test_release(void)
{
	const struct vf_entry *e;
	char msg[1024], list[256] = "", before[32768], after[32768];

	setup((struct fk_opts){0}, "physnet2:enp1s0f0,physnet3:enp1s0f1");
	ASSERT_INT_EQ(alloc("physnet2", "pod-a", &e, msg, sizeof(msg)), 0);
	ASSERT_INT_EQ(alloc("physnet3", "pod-a", &e, msg, sizeof(msg)), 0);
	ASSERT_INT_EQ(alloc("physnet2", "pod-b", &e, msg, sizeof(msg)), 0);
	ASSERT_STR_EQ(driver_of("0000:01:11.0"), "vfio-pci");

	/* By owner: every VF it holds, back on its original driver. */
	ASSERT_INT_EQ(vf_pool_release(NULL, "pod-a", count_released, list, msg, sizeof(msg)), 0);
	ASSERT_STR_EQ(list, "0000:01:10.0(pod-a,iavf) 0000:01:11.0(pod-a,iavf) ");
	ASSERT_STR_EQ(driver_of("0000:01:10.0"), "iavf");
	ASSERT_STR_EQ(driver_of("0000:01:11.0"), "iavf");
	ASSERT_STR_EQ(by_pci("0000:01:10.0")->vf.netdev, "enp1s0f0v0");
	ASSERT_INT_EQ(count("physnet2", VF_FREE), 3);
	ASSERT_INT_EQ(count("physnet3", VF_FREE), 2);
	ASSERT_NOT_CONTAINS(state_file(), "pod-a");
	ASSERT_CONTAINS(state_file(), "pod-b");

	/* Not allocated: success, nothing done (CNI DEL is idempotent). */
	snapshot(before, sizeof(before));
	list[0] = '\0';
	ASSERT_INT_EQ(vf_pool_release(NULL, "pod-a", count_released, list, msg, sizeof(msg)), 0);
	ASSERT_INT_EQ(vf_pool_release("0000:01:10.0", NULL, count_released, list, msg, sizeof(msg)),
		      0);
	ASSERT_INT_EQ(vf_pool_release("0000:09:00.0", NULL, count_released, list, msg, sizeof(msg)),
		      0);
	ASSERT_STR_EQ(list, "");
	snapshot(after, sizeof(after));
	ASSERT_STR_EQ(after, before);

	/* By address. */
	ASSERT_INT_EQ(vf_pool_release("0000:01:10.2", NULL, count_released, list, msg, sizeof(msg)),
		      0);
	ASSERT_STR_EQ(list, "0000:01:10.2(pod-b,iavf) ");
	ASSERT_INT_EQ(count("physnet2", VF_FREE), 4);
	ASSERT_NOT_CONTAINS(state_file(), "pod-b");
}

/* A VF whose original driver was none goes back to none. */
static void test_release_unbound_original(void)
{
	const struct vf_entry *e;
	char msg[1024];

	setup((struct fk_opts){0}, "physnet3:enp1s0f1");
	CU_ASSERT_FATAL(sriov_write("bus/pci/drivers/iavf/unbind", "0000:01:11.0") == 0);
	vf_pool_refresh();
	ASSERT_INT_EQ(alloc("physnet3", "x", &e, msg, sizeof(msg)), 0);
	ASSERT_STR_EQ(e->vf.pci, "0000:01:11.0");
	ASSERT_STR_EQ(e->orig_driver, "");
	ASSERT_INT_EQ(vf_pool_release(NULL, "x", NULL, NULL, msg, sizeof(msg)), 0);
	ASSERT_STR_EQ(driver_of("0000:01:11.0"), "");
}

static void test_restart_keeps_allocations(void)
{
	struct sriov_vf_conf c = {.vlan = 7, .spoofchk = -1, .trust = -1};
	const struct vf_entry *e;
	char msg[1024], file[16384];

	setup((struct fk_opts){0}, "physnet2:enp1s0f0,physnet3:enp1s0f1");
	ASSERT_INT_EQ(vf_pool_alloc("physnet2", "c1/net1", &c, &e, msg, sizeof(msg)), 0);
	ASSERT_INT_EQ(alloc("physnet3", "c2/net1", &e, msg, sizeof(msg)), 0);
	snprintf(file, sizeof(file), "%s", state_file());
	ASSERT_CONTAINS(file, "\"version\":\t1");

	/* podwired stops and starts again. */
	vf_pool_fini();
	ASSERT_INT_EQ(vf_pool_configure("physnet2:enp1s0f0,physnet3:enp1s0f1", msg, sizeof(msg)),
		      0);
	ASSERT_INT_EQ(count("physnet2", VF_USED), 0);
	ASSERT_INT_EQ(count("physnet2", VF_UNAVAILABLE), 1); /* on vfio-pci, owner unknown */
	ASSERT_INT_EQ(vf_pool_restore(state), 2);
	ASSERT_INT_EQ(count("physnet2", VF_USED), 1);
	ASSERT_INT_EQ(count("physnet3", VF_USED), 1);
	e = by_pci("0000:01:10.0");
	ASSERT_STR_EQ(e->owner, "c1/net1");
	ASSERT_STR_EQ(e->orig_driver, "iavf");
	ASSERT_INT_EQ(e->conf.vlan, 7);
	ASSERT_STR_EQ(by_pci("0000:01:11.0")->owner, "c2/net1");
	ASSERT_CONTAINS(logged, "restored 2 VF allocation(s)");
	/* Nothing dropped: the file is as it was. */
	ASSERT_STR_EQ(state_file(), file);
	/* And the next allocation does not take a restored VF. */
	ASSERT_INT_EQ(alloc("physnet2", "c3/net1", &e, msg, sizeof(msg)), 0);
	ASSERT_STR_EQ(e->vf.pci, "0000:01:10.2");
	/* Release after the restart gives back the original driver. */
	ASSERT_INT_EQ(vf_pool_release(NULL, "c1/net1", NULL, NULL, msg, sizeof(msg)), 0);
	ASSERT_STR_EQ(driver_of("0000:01:10.0"), "iavf");
}

/* What no longer holds at start-up is logged and dropped. */
static void test_restart_inconsistent(void)
{
	const struct vf_entry *e;
	char msg[1024], path[256];
	FILE *f;

	setup((struct fk_opts){0}, "physnet2:enp1s0f0,physnet3:enp1s0f1");
	ASSERT_INT_EQ(alloc("physnet2", "kept", &e, msg, sizeof(msg)), 0);
	ASSERT_INT_EQ(alloc("physnet2", "rebound", &e, msg, sizeof(msg)), 0);
	ASSERT_INT_EQ(alloc("physnet3", "gone", &e, msg, sizeof(msg)), 0);
	vf_pool_fini();
	/* While podwired was down: 0000:01:10.2 went back to iavf. */
	CU_ASSERT_FATAL(sriov_write("bus/pci/drivers/vfio-pci/unbind", "0000:01:10.2") == 0);
	CU_ASSERT_FATAL(sriov_write("bus/pci/drivers_probe", "0000:01:10.2") == 0);
	ASSERT_STR_EQ(driver_of("0000:01:10.2"), "iavf");
	/* ... and physnet3 was dropped from --physnets. */
	ASSERT_INT_EQ(vf_pool_configure("physnet2:enp1s0f0", msg, sizeof(msg)), 0);
	ASSERT_INT_EQ(vf_pool_restore(state), 1);
	ASSERT_STR_EQ(by_pci("0000:01:10.0")->owner, "kept");
	ASSERT_INT_EQ(by_pci("0000:01:10.2")->state, VF_FREE);
	ASSERT_CONTAINS(logged, "VF 0000:01:10.2 was allocated to rebound but is now bound to "
				"iavf, not vfio-pci");
	ASSERT_CONTAINS(logged, "VF 0000:01:11.0 (owner gone) is in no physnet");
	ASSERT_CONTAINS(state_file(), "kept");
	ASSERT_NOT_CONTAINS(state_file(), "rebound");
	ASSERT_NOT_CONTAINS(state_file(), "gone");

	/* A damaged file: logged, nothing restored, the file left alone. */
	vf_pool_fini();
	snprintf(path, sizeof(path), "%s/%s", state, VF_POOL_FILE);
	f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs("{\"version\": 1, \"vfs\": [", f);
	fclose(f);
	logged[0] = '\0';
	ASSERT_INT_EQ(vf_pool_configure("physnet2:enp1s0f0", msg, sizeof(msg)), 0);
	ASSERT_INT_EQ(vf_pool_restore(state), -EBADMSG);
	ASSERT_CONTAINS(logged, "is not valid JSON");
	ASSERT_STR_EQ(state_file(), "{\"version\": 1, \"vfs\": [");
	ASSERT_INT_EQ(count("physnet2", VF_USED), 0);

	/* Records that make no sense are dropped one by one. */
	vf_pool_fini();
	f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs("{\"version\": 1, \"vfs\": [{\"pci\": \"0000:01:10.0\"},"
	      "{\"pci\": \"0000:01:10.0\", \"owner\": \"kept\", \"original_driver\": \"iavf\","
	      " \"vlan\": 5000}]}",
	      f);
	fclose(f);
	logged[0] = '\0';
	ASSERT_INT_EQ(vf_pool_configure("physnet2:enp1s0f0", msg, sizeof(msg)), 0);
	ASSERT_INT_EQ(vf_pool_restore(state), 0);
	ASSERT_CONTAINS(logged, "dropping a malformed record");
	ASSERT_CONTAINS(logged, "\"vlan\":5000");
}

/* The state cannot be saved: the allocation is undone. */
/* sriov/ asks the others which port holds a VF (NOTIFY_PCI_USER): vf.release
 * refuses while one does. Each change of the allocations is published. */
static const char *held_pci;
static unsigned int pool_changes;

static void holder(const void *arg, void *ctx)
{
	const struct notify_pci_user *q = arg;

	(void)ctx;
	if (held_pci != NULL && strcmp(q->pci, held_pci) == 0)
		*q->user = "pod-pci";
}

static void pool_changed(const void *arg, void *ctx)
{
	(void)arg;
	(void)ctx;
	pool_changes++;
}

static void test_release_held_by_port(void)
{
	api_handler_fn release = api_handler(API_M_VF_RELEASE);
	struct api_err err = {0};
	const struct vf_entry *e;
	char msg[1024], pci[SRIOV_PCI_LEN];
	cJSON *params, *res;

	setup((struct fk_opts){0}, "physnet2:enp1s0f0");
	CU_ASSERT_FATAL(release != NULL);
	pool_changes = 0;
	ASSERT_INT_EQ(notify_subscribe(NOTIFY_VF_POOL_CHANGED, pool_changed, NULL), 0);
	ASSERT_INT_EQ(alloc("physnet2", "pod-a", &e, msg, sizeof(msg)), 0);
	ASSERT_INT_EQ(pool_changes, 1);
	snprintf(pci, sizeof(pci), "%s", e->vf.pci);
	params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, API_F_PCI, pci);

	held_pci = pci;
	ASSERT_INT_EQ(notify_subscribe(NOTIFY_PCI_USER, holder, NULL), 0);
	res = release(params, &err);
	CU_ASSERT(res == NULL);
	ASSERT_INT_EQ(err.code, API_ERR_IN_USE);
	ASSERT_CONTAINS(err.msg, "is used by port \"pod-pci\"; delete the port first");
	ASSERT_STR_EQ(driver_of(pci), "vfio-pci");
	ASSERT_INT_EQ(pool_changes, 1);

	/* The port went: the VF goes back. */
	notify_unsubscribe(NOTIFY_PCI_USER, holder, NULL);
	res = release(params, &err);
	CU_ASSERT(res != NULL);
	cJSON_Delete(res);
	ASSERT_STR_EQ(driver_of(pci), "iavf");
	ASSERT_INT_EQ(pool_changes, 2);
	notify_unsubscribe(NOTIFY_VF_POOL_CHANGED, pool_changed, NULL);
	held_pci = NULL;
	cJSON_Delete(params);
}

static void test_state_unwritable(void)
{
	const struct vf_entry *e;
	char msg[1024], missing[256];

	setup((struct fk_opts){0}, "physnet2:enp1s0f0");
	snprintf(missing, sizeof(missing), "%s/no/such/dir", base);
	ASSERT_INT_EQ(vf_pool_restore(missing), 0);
	ASSERT_INT_EQ(alloc("physnet2", "x", &e, msg, sizeof(msg)), -ECANCELED);
	ASSERT_CONTAINS(msg, "VF 0000:01:10.0: not allocated, the state was not saved");
	ASSERT_STR_EQ(driver_of("0000:01:10.0"), "iavf");
	ASSERT_INT_EQ(count("physnet2", VF_FREE), 4);
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"--physnets: good", test_parse_good},
	    {"--physnets: bad strings", test_parse_bad},
	    {"--physnets: unknown PF, no SR-IOV, bad range, no VFs", test_configure_errors},
	    {"discovery: counts, drivers, groups, ranges", test_discovery},
	    {"alloc until exhausted; unknown physnet", test_alloc_until_exhausted},
	    {"alloc without vfio-pci", test_alloc_without_vfio},
	    {"alloc without IOMMU groups", test_alloc_without_iommu},
	    {"VF settings: skipped, applied, refused (rollback), reset", test_vf_config},
	    {"release by owner, by address, idempotent", test_release},
	    {"release to no driver", test_release_unbound_original},
	    {"restart keeps allocations", test_restart_keeps_allocations},
	    {"restart drops what no longer holds", test_restart_inconsistent},
	    {"state not saved: alloc undone", test_state_unwritable},
	    {"vf.release refused while a port holds the VF", test_release_held_by_port},
	    {NULL, NULL},
	};
	FILE *log = fopencookie(NULL, "w", (cookie_io_functions_t){.write = log_capture});
	int rc;

	if (!unit_tmpdir(base, sizeof(base)) || log == NULL) {
		perror("mkdtemp");
		return 2;
	}
	/* Unbuffered: each line is in logged once rte_log returns. */
	setvbuf(log, NULL, _IONBF, 0);
	rte_openlog_stream(log);
	rc = unit_run("vf_pool", tests);
	rte_openlog_stream(NULL);
	fclose(log);
	vf_pool_fini();
	unit_rmtree(base);
	return rc;
}
