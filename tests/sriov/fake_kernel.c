/* SPDX-License-Identifier: BSD-3-Clause */
/* The fake sysfs tree and the fake PCI core; see fake_kernel.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_kernel.h"

#define DEVDIR "devices/pci0000:00"

struct fk_dev {
	const char *bdf, *vendor, *device, *driver, *ifname;
	int group;    /* iommu group, -1: none */
	int pf;	      /* index of the PF in fk_devs, -1: not a VF */
	int vf_index; /* VF number under its PF */
	int totalvfs; /* > 0: an SR-IOV PF */
};

/* eno1: a NIC without SR-IOV. enp1s0f0: 4 VFs of 8. enp1s0f1: 2 VFs of 8. */
static const struct fk_dev fk_devs[] = {
    {"0000:00:19.0", "0x8086", "0x15bb", "e1000e", "eno1", 0, -1, 0, 0},
    {"0000:01:00.0", "0x8086", "0x1593", "ice", "enp1s0f0", 1, -1, 0, 8},
    {"0000:01:00.1", "0x8086", "0x1593", "ice", "enp1s0f1", 2, -1, 0, 8},
    {"0000:01:10.0", "0x8086", "0x1889", "iavf", "enp1s0f0v0", 10, 1, 0, 0},
    {"0000:01:10.2", "0x8086", "0x1889", "iavf", "enp1s0f0v1", 11, 1, 1, 0},
    {"0000:01:10.4", "0x8086", "0x1889", "iavf", "enp1s0f0v2", 12, 1, 2, 0},
    {"0000:01:10.6", "0x8086", "0x1889", "iavf", "enp1s0f0v3", 13, 1, 3, 0},
    {"0000:01:11.0", "0x8086", "0x1889", "iavf", "enp1s0f1v0", 14, 2, 0, 0},
    {"0000:01:11.2", "0x8086", "0x1889", "iavf", "enp1s0f1v1", 15, 2, 1, 0},
};

/* Drivers and the vendor:device pairs they claim; vfio-pci claims none
 * (it binds through driver_override only). */
static const struct {
	const char *name, *ids;
} fk_drivers[] = {
    {"e1000e", "0x8086 0x15bb\n"},
    {"ice", "0x8086 0x1593\n"},
    {"iavf", "0x8086 0x1889\n"},
    {"vfio-pci", ""},
};

#define IFF_UP_FLAGS   "0x1003\n" /* IFF_UP | IFF_BROADCAST | IFF_MULTICAST */
#define IFF_DOWN_FLAGS "0x1002\n"

/* a/b into buf, refusing to truncate. */
static int pjoin(char *buf, size_t len, const char *a, const char *b)
{
	int n = snprintf(buf, len, "%s/%s", a, b);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int put(const char *root, const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	if (pjoin(path, sizeof(path), root, rel) != 0)
		return -ENAMETOOLONG;
	f = fopen(path, "w");
	if (f == NULL)
		return -errno;
	fputs(text, f);
	return fclose(f) == 0 ? 0 : -errno;
}

static int get(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NONBLOCK);

	buf[0] = '\0';
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static int mkdirs(const char *root, const char *rel)
{
	char path[PATH_MAX];

	if (pjoin(path, sizeof(path), root, rel) != 0)
		return -ENAMETOOLONG;
	for (char *p = path + strlen(root) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) != 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(path, 0755) != 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* root/rel -> target (a relative link, as in sysfs). */
static int link_at(const char *root, const char *rel, const char *target)
{
	char path[PATH_MAX];

	if (pjoin(path, sizeof(path), root, rel) != 0)
		return -ENAMETOOLONG;
	unlink(path);
	return symlink(target, path) == 0 ? 0 : -errno;
}

static void unlink_at(const char *root, const char *rel)
{
	char path[PATH_MAX];

	if (pjoin(path, sizeof(path), root, rel) == 0)
		unlink(path);
}

/* A device named by its PCI address or its netdev. */
static bool listed(const char *const *list, unsigned int n, const struct fk_dev *d)
{
	for (unsigned int i = 0; i < n; i++)
		if (strcmp(list[i], d->bdf) == 0 || strcmp(list[i], d->ifname) == 0)
			return true;
	return false;
}

static int mk_ctl(const char *root, const char *rel, bool fifo)
{
	char path[PATH_MAX];

	if (!fifo)
		return put(root, rel, "");
	if (pjoin(path, sizeof(path), root, rel) != 0)
		return -ENAMETOOLONG;
	return mkfifo(path, 0200) == 0 ? 0 : -errno;
}

/* Netdev of a device bound to a netdev driver: DEVDIR/<bdf>/net/<if> and
 * class/net/<if>. */
static int netdev_add(const char *root, const char *bdf, const char *ifname, bool up)
{
	char rel[PATH_MAX], target[PATH_MAX];
	int rc;

	snprintf(rel, sizeof(rel), DEVDIR "/%s/net/%s", bdf, ifname);
	if ((rc = mkdirs(root, rel)) != 0)
		return rc;
	snprintf(rel, sizeof(rel), DEVDIR "/%s/net/%s/flags", bdf, ifname);
	if ((rc = put(root, rel, up ? IFF_UP_FLAGS : IFF_DOWN_FLAGS)) != 0)
		return rc;
	snprintf(rel, sizeof(rel), DEVDIR "/%s/net/%s/device", bdf, ifname);
	snprintf(target, sizeof(target), "../../../%s", bdf);
	if ((rc = link_at(root, rel, target)) != 0)
		return rc;
	snprintf(rel, sizeof(rel), "class/net/%s", ifname);
	snprintf(target, sizeof(target), "../../" DEVDIR "/%s/net/%s", bdf, ifname);
	return link_at(root, rel, target);
}

static void netdev_del(const char *root, const char *bdf)
{
	char path[PATH_MAX], sub[PATH_MAX + 300], rel[PATH_MAX];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "%s/" DEVDIR "/%s/net", root, bdf);
	d = opendir(path);
	while (d != NULL && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "class/net/%s", e->d_name);
		unlink_at(root, rel);
		snprintf(sub, sizeof(sub), "%s/%s/flags", path, e->d_name);
		unlink(sub);
		snprintf(sub, sizeof(sub), "%s/%s/device", path, e->d_name);
		unlink(sub);
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		rmdir(sub);
	}
	if (d != NULL)
		closedir(d);
	rmdir(path);
}

static const struct fk_dev *dev_find(const char *bdf)
{
	for (size_t i = 0; i < sizeof(fk_devs) / sizeof(fk_devs[0]); i++)
		if (strcmp(fk_devs[i].bdf, bdf) == 0)
			return &fk_devs[i];
	return NULL;
}

static bool netdev_driver(const char *drv)
{
	return strcmp(drv, "vfio-pci") != 0;
}

static int do_bind(const char *root, const struct fk_dev *d, const char *drv)
{
	char rel[PATH_MAX], target[PATH_MAX];
	int rc;

	snprintf(rel, sizeof(rel), DEVDIR "/%s/driver", d->bdf);
	snprintf(target, sizeof(target), "../../../bus/pci/drivers/%s", drv);
	if ((rc = link_at(root, rel, target)) != 0)
		return rc;
	snprintf(rel, sizeof(rel), "bus/pci/drivers/%s/%s", drv, d->bdf);
	snprintf(target, sizeof(target), "../../../../" DEVDIR "/%s", d->bdf);
	if ((rc = link_at(root, rel, target)) != 0)
		return rc;
	/* A netdev driver makes the interface again, down. */
	if (netdev_driver(drv) && d->ifname != NULL)
		return netdev_add(root, d->bdf, d->ifname, false);
	return 0;
}

int fk_create(const char *root, const struct fk_opts *o)
{
	char rel[PATH_MAX], target[PATH_MAX];
	int rc = 0;

	for (size_t i = 0; i < sizeof(fk_drivers) / sizeof(fk_drivers[0]); i++) {
		const char *drv = fk_drivers[i].name;

		if (o->no_vfio && strcmp(drv, "vfio-pci") == 0)
			continue;
		snprintf(rel, sizeof(rel), "bus/pci/drivers/%s", drv);
		if ((rc = mkdirs(root, rel)) != 0)
			return rc;
		snprintf(rel, sizeof(rel), "bus/pci/drivers/%s/bind", drv);
		if ((rc = mk_ctl(root, rel, o->fifos)) != 0)
			return rc;
		snprintf(rel, sizeof(rel), "bus/pci/drivers/%s/unbind", drv);
		if ((rc = mk_ctl(root, rel, o->fifos)) != 0)
			return rc;
		snprintf(rel, sizeof(rel), "bus/pci/drivers/%s/.fake_ids", drv);
		if ((rc = put(root, rel, fk_drivers[i].ids)) != 0)
			return rc;
	}
	if (!o->no_vfio) {
		if ((rc = mkdirs(root, "module/vfio/parameters")) != 0 ||
		    (rc = put(root, "module/vfio/parameters/enable_unsafe_noiommu_mode", "N\n")) !=
			0)
			return rc;
	}
	if ((rc = mkdirs(root, "bus/pci/devices")) != 0 || (rc = mkdirs(root, "class/net")) != 0 ||
	    (rc = mk_ctl(root, "bus/pci/drivers_probe", o->fifos)) != 0)
		return rc;
	for (size_t i = 0; i < sizeof(fk_devs) / sizeof(fk_devs[0]); i++) {
		const struct fk_dev *d = &fk_devs[i];

		snprintf(rel, sizeof(rel), DEVDIR "/%s", d->bdf);
		if ((rc = mkdirs(root, rel)) != 0)
			return rc;
		snprintf(rel, sizeof(rel), DEVDIR "/%s/vendor", d->bdf);
		snprintf(target, sizeof(target), "%s\n", d->vendor);
		if ((rc = put(root, rel, target)) != 0)
			return rc;
		snprintf(rel, sizeof(rel), DEVDIR "/%s/device", d->bdf);
		snprintf(target, sizeof(target), "%s\n", d->device);
		if ((rc = put(root, rel, target)) != 0)
			return rc;
		snprintf(rel, sizeof(rel), DEVDIR "/%s/driver_override", d->bdf);
		if ((rc = put(root, rel, "(null)\n")) != 0)
			return rc;
		snprintf(rel, sizeof(rel), "bus/pci/devices/%s", d->bdf);
		snprintf(target, sizeof(target), "../../../" DEVDIR "/%s", d->bdf);
		if ((rc = link_at(root, rel, target)) != 0)
			return rc;
		if (d->group >= 0 && !listed(o->no_iommu, o->n_no_iommu, d)) {
			snprintf(rel, sizeof(rel), "kernel/iommu_groups/%d/devices", d->group);
			if ((rc = mkdirs(root, rel)) != 0)
				return rc;
			snprintf(rel, sizeof(rel), "kernel/iommu_groups/%d/devices/%s", d->group,
				 d->bdf);
			snprintf(target, sizeof(target), "../../../../" DEVDIR "/%s", d->bdf);
			if ((rc = link_at(root, rel, target)) != 0)
				return rc;
			snprintf(rel, sizeof(rel), DEVDIR "/%s/iommu_group", d->bdf);
			snprintf(target, sizeof(target), "../../../kernel/iommu_groups/%d",
				 d->group);
			if ((rc = link_at(root, rel, target)) != 0)
				return rc;
		}
		if (d->totalvfs > 0) {
			int numvfs = 0;

			for (size_t j = 0; j < sizeof(fk_devs) / sizeof(fk_devs[0]); j++)
				numvfs += fk_devs[j].pf == (int)i;
			snprintf(rel, sizeof(rel), DEVDIR "/%s/sriov_totalvfs", d->bdf);
			snprintf(target, sizeof(target), "%d\n", d->totalvfs);
			if ((rc = put(root, rel, target)) != 0)
				return rc;
			snprintf(rel, sizeof(rel), DEVDIR "/%s/sriov_numvfs", d->bdf);
			snprintf(target, sizeof(target), "%d\n", numvfs);
			if ((rc = put(root, rel, target)) != 0)
				return rc;
		}
		if (d->pf >= 0) {
			snprintf(rel, sizeof(rel), DEVDIR "/%s/physfn", d->bdf);
			snprintf(target, sizeof(target), "../%s", fk_devs[d->pf].bdf);
			if ((rc = link_at(root, rel, target)) != 0)
				return rc;
			snprintf(rel, sizeof(rel), DEVDIR "/%s/virtfn%d", fk_devs[d->pf].bdf,
				 d->vf_index);
			snprintf(target, sizeof(target), "../%s", d->bdf);
			if ((rc = link_at(root, rel, target)) != 0)
				return rc;
		}
		if ((rc = do_bind(root, d, d->driver)) != 0)
			return rc;
		/* PFs are up; VFs are down unless asked. */
		snprintf(rel, sizeof(rel), "class/net/%s/flags", d->ifname);
		if (d->pf < 0 || listed(o->netdev_up, o->n_netdev_up, d))
			if ((rc = put(root, rel, IFF_UP_FLAGS)) != 0)
				return rc;
	}
	return 0;
}

/* The device's driver, "" when unbound. */
static void cur_driver(const char *root, const char *bdf, char *drv, size_t len)
{
	char path[PATH_MAX], target[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/" DEVDIR "/%s/driver", root, bdf);
	n = readlink(path, target, sizeof(target) - 1);
	drv[0] = '\0';
	if (n > 0) {
		target[n] = '\0';
		const char *base = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;

		if (strlen(base) < len)
			memcpy(drv, base, strlen(base) + 1);
	}
}

static void override_of(const char *root, const char *bdf, char *buf, size_t len)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/" DEVDIR "/%s/driver_override", root, bdf);
	get(path, buf, len);
	if (strcmp(buf, "(null)") == 0)
		buf[0] = '\0';
}

/* The PCI core's match: driver_override wins; else the ID table. */
static bool matches(const char *root, const struct fk_dev *d, const char *drv)
{
	char over[64], path[PATH_MAX], ids[256], want[64];

	override_of(root, d->bdf, over, sizeof(over));
	if (over[0] != '\0')
		return strcmp(over, drv) == 0;
	snprintf(path, sizeof(path), "%s/bus/pci/drivers/%s/.fake_ids", root, drv);
	if (get(path, ids, sizeof(ids)) != 0)
		return false;
	snprintf(want, sizeof(want), "%s %s", d->vendor, d->device);
	return ids[0] != '\0' && strstr(ids, want) != NULL;
}

/* vfio-pci refuses a device without an IOMMU group (noiommu mode aside). */
static bool has_group(const char *root, const char *bdf)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/" DEVDIR "/%s/iommu_group", root, bdf);
	return lstat(path, &st) == 0;
}

static int k_bind(const char *root, const char *drv, const char *bdf)
{
	const struct fk_dev *d = dev_find(bdf);
	char cur[64];

	if (d == NULL)
		return -ENODEV;
	cur_driver(root, bdf, cur, sizeof(cur));
	if (cur[0] != '\0')
		return -EBUSY;
	if (!matches(root, d, drv))
		return -ENODEV;
	if (strcmp(drv, "vfio-pci") == 0 && !has_group(root, bdf))
		return -EINVAL;
	return do_bind(root, d, drv);
}

static int k_unbind(const char *root, const char *drv, const char *bdf)
{
	const struct fk_dev *d = dev_find(bdf);
	char cur[64], rel[PATH_MAX];

	if (d == NULL)
		return -ENODEV;
	cur_driver(root, bdf, cur, sizeof(cur));
	if (strcmp(cur, drv) != 0)
		return -ENODEV;
	netdev_del(root, bdf);
	snprintf(rel, sizeof(rel), DEVDIR "/%s/driver", bdf);
	unlink_at(root, rel);
	snprintf(rel, sizeof(rel), "bus/pci/drivers/%s/%s", drv, bdf);
	unlink_at(root, rel);
	return 0;
}

static int k_probe(const char *root, const char *bdf)
{
	const struct fk_dev *d = dev_find(bdf);
	char cur[64];

	if (d == NULL)
		return -ENODEV;
	cur_driver(root, bdf, cur, sizeof(cur));
	if (cur[0] != '\0')
		return 0;
	for (size_t i = 0; i < sizeof(fk_drivers) / sizeof(fk_drivers[0]); i++) {
		char dir[PATH_MAX];
		struct stat st;

		snprintf(dir, sizeof(dir), "%s/bus/pci/drivers/%s", root, fk_drivers[i].name);
		if (stat(dir, &st) == 0 && matches(root, d, fk_drivers[i].name))
			return k_bind(root, fk_drivers[i].name, bdf);
	}
	return 0; /* no driver wants it: stays unbound, as in the kernel */
}

/* path relative to root with the directory's symlinks resolved. */
static int canonical(const char *root, const char *path, char *rel, size_t len)
{
	char rroot[PATH_MAX], dir[PATH_MAX], rdir[PATH_MAX], *slash;
	size_t n;

	if (realpath(root, rroot) == NULL)
		return -errno;
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash == NULL)
		return -EINVAL;
	*slash = '\0';
	if (realpath(dir, rdir) == NULL)
		return -errno;
	n = strlen(rroot);
	if (strncmp(rdir, rroot, n) != 0 || (rdir[n] != '/' && rdir[n] != '\0'))
		return -EXDEV;
	snprintf(rel, len, "%s%s%s", rdir[n] ? rdir + n + 1 : "", rdir[n] ? "/" : "", slash + 1);
	return 0;
}

int fk_write(const char *root, const char *path, const char *value)
{
	char rel[PATH_MAX], val[256], jpath[PATH_MAX], drv[128];
	size_t n;
	FILE *j;
	int rc;

	if ((rc = canonical(root, path, rel, sizeof(rel))) != 0)
		return rc;
	snprintf(val, sizeof(val), "%s", value);
	n = strlen(val);
	while (n > 0 && (val[n - 1] == '\n' || val[n - 1] == ' '))
		val[--n] = '\0';
	snprintf(jpath, sizeof(jpath), "%s/fake_kernel.journal", root);
	j = fopen(jpath, "a");
	if (j != NULL) {
		fprintf(j, "%s %s\n", rel, val);
		fclose(j);
	}
	if (strcmp(rel, "bus/pci/drivers_probe") == 0)
		return k_probe(root, val);
	if (sscanf(rel, "bus/pci/drivers/%127[^/]/", drv) == 1) {
		const char *file = strrchr(rel, '/') + 1;

		if (strcmp(file, "bind") == 0)
			return k_bind(root, drv, val);
		if (strcmp(file, "unbind") == 0)
			return k_unbind(root, drv, val);
	}
	return 0; /* driver_override and the rest: the file holds the value */
}

static volatile sig_atomic_t fk_stop;

static void on_signal(int sig)
{
	(void)sig;
	fk_stop = 1;
}

#define FK_MAX_FDS 64

int fk_serve(const char *root)
{
	struct pollfd pfd[FK_MAX_FDS];
	char paths[FK_MAX_FDS][PATH_MAX], pidfile[PATH_MAX], tmp[PATH_MAX + 8];
	char wpaths[FK_MAX_FDS][PATH_MAX];
	int wds[FK_MAX_FDS], nw = 0, nfd = 1, ino;
	struct dirent *e;
	DIR *d;
	FILE *f;

	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (ino < 0)
		return -errno;
	pfd[0] = (struct pollfd){.fd = ino, .events = POLLIN};
	/* Every driver's bind and unbind, and drivers_probe. */
	snprintf(tmp, sizeof(tmp), "%s/bus/pci/drivers", root);
	d = opendir(tmp);
	while (d != NULL && (e = readdir(d)) != NULL && nfd < FK_MAX_FDS - 3) {
		if (e->d_name[0] == '.')
			continue;
		for (int k = 0; k < 2; k++) {
			snprintf(paths[nfd], PATH_MAX, "%s/bus/pci/drivers/%s/%s", root, e->d_name,
				 k ? "unbind" : "bind");
			pfd[nfd].fd = open(paths[nfd], O_RDWR | O_NONBLOCK | O_CLOEXEC);
			pfd[nfd].events = POLLIN;
			if (pfd[nfd].fd < 0)
				return -errno;
			nfd++;
		}
	}
	if (d != NULL)
		closedir(d);
	snprintf(paths[nfd], PATH_MAX, "%s/bus/pci/drivers_probe", root);
	pfd[nfd].fd = open(paths[nfd], O_RDWR | O_NONBLOCK | O_CLOEXEC);
	pfd[nfd].events = POLLIN;
	if (pfd[nfd].fd < 0)
		return -errno;
	nfd++;
	/* driver_override stays a plain file (it is read back); a write to it
	 * is seen when the writer closes it. */
	for (size_t i = 0; i < sizeof(fk_devs) / sizeof(fk_devs[0]) && nw < FK_MAX_FDS; i++) {
		snprintf(wpaths[nw], PATH_MAX, "%s/" DEVDIR "/%s/driver_override", root,
			 fk_devs[i].bdf);
		wds[nw] = inotify_add_watch(ino, wpaths[nw], IN_CLOSE_WRITE);
		if (wds[nw] < 0)
			return -errno;
		nw++;
	}
	snprintf(pidfile, sizeof(pidfile), "%s/fake_kernel.pid", root);
	snprintf(tmp, sizeof(tmp), "%s.tmp", pidfile);
	f = fopen(tmp, "w");
	if (f == NULL)
		return -errno;
	fprintf(f, "%d\n", getpid());
	fclose(f);
	rename(tmp, pidfile);

	while (!fk_stop) {
		if (poll(pfd, (nfds_t)nfd, 200) <= 0)
			continue;
		/* driver_override first: a writer waits for each bind or unbind
		 * to take effect, so an override write waiting here together with
		 * a bind was made before it. */
		if (pfd[0].revents & POLLIN) {
			char ev[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
			ssize_t n = read(ino, ev, sizeof(ev));

			for (char *p = ev; n > 0 && p < ev + n;) {
				struct inotify_event *ie = (struct inotify_event *)p;

				for (int k = 0; k < nw; k++) {
					char val[256];

					if (wds[k] != ie->wd)
						continue;
					get(wpaths[k], val, sizeof(val));
					fk_write(root, wpaths[k], val);
				}
				p += sizeof(*ie) + ie->len;
			}
		}
		for (int i = 1; i < nfd; i++) {
			char buf[4096], *save = NULL, *line;
			ssize_t n;

			if (!(pfd[i].revents & POLLIN))
				continue;
			n = read(pfd[i].fd, buf, sizeof(buf) - 1);
			if (n <= 0)
				continue;
			buf[n] = '\0';
			/* One value per write; values the writer ended with a
			 * newline may share a read. */
			for (line = strtok_r(buf, "\n", &save); line != NULL;
			     line = strtok_r(NULL, "\n", &save))
				fk_write(root, paths[i], line);
		}
	}
	unlink(pidfile);
	return 0;
}
