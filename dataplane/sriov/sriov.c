/* SPDX-License-Identifier: BSD-3-Clause */
/* SR-IOV through sysfs; see sriov.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sriov/sriov.h"

#define IFF_UP_BIT 0x1

static char sysfs_root[PATH_MAX] = "/sys";
static sriov_write_hook_t write_hook;
static unsigned int timeout_ms = 2000;

void sriov_set_root(const char *root)
{
	size_t n;

	snprintf(sysfs_root, sizeof(sysfs_root), "%s", root != NULL && root[0] ? root : "/sys");
	n = strlen(sysfs_root);
	while (n > 1 && sysfs_root[n - 1] == '/')
		sysfs_root[--n] = '\0';
}

const char *sriov_root(void)
{
	return sysfs_root;
}

void sriov_set_write_hook(sriov_write_hook_t hook)
{
	write_hook = hook;
}

void sriov_set_timeout_ms(unsigned int ms)
{
	timeout_ms = ms;
}

/* root/rel into path; a path longer than PATH_MAX is refused. */
static int full_path(const char *rel, char *path, size_t len)
{
	int n = snprintf(path, len, "%s/%s", sysfs_root, rel);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int sriov_read(const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	buf[0] = '\0';
	if (full_path(rel, path, sizeof(path)) != 0)
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
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

/* O_NONBLOCK: a FIFO nobody reads (a test tree without its fake kernel)
 * fails with ENXIO instead of hanging the daemon; sysfs ignores it. */
int sriov_write(const char *rel, const char *value)
{
	char path[PATH_MAX];
	size_t n = strlen(value);
	ssize_t w;
	int fd, rc = 0;

	if (full_path(rel, path, sizeof(path)) != 0)
		return -ENAMETOOLONG;
	fd = open(path, O_WRONLY | O_TRUNC | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	w = write(fd, value, n);
	if (w < 0)
		rc = -errno;
	else if ((size_t)w != n)
		rc = -EIO;
	if (close(fd) != 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && write_hook != NULL)
		rc = write_hook(path, value);
	return rc;
}

int sriov_readlink_base(const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *base;
	ssize_t n;

	buf[0] = '\0';
	if (full_path(rel, path, sizeof(path)) != 0)
		return -ENAMETOOLONG;
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base != NULL ? base + 1 : target;
	if (strlen(base) >= len)
		return -ENAMETOOLONG;
	memcpy(buf, base, strlen(base) + 1);
	return 0;
}

static bool exists(const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	return full_path(rel, path, sizeof(path)) == 0 && lstat(path, &st) == 0;
}

static int read_int(const char *rel, int *out)
{
	char buf[32], *end;
	long v;
	int rc = sriov_read(rel, buf, sizeof(buf));

	if (rc != 0)
		return rc;
	errno = 0;
	v = strtol(buf, &end, 0);
	if (errno != 0 || end == buf || *end != '\0' || v < 0 || v > 65535)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

bool sriov_noiommu(void)
{
	char v[8];

	return sriov_read("module/vfio/parameters/enable_unsafe_noiommu_mode", v, sizeof(v)) == 0 &&
	       (v[0] == 'Y' || v[0] == '1');
}

bool sriov_vfio_loaded(void)
{
	return exists("bus/pci/drivers/" SRIOV_VFIO);
}

int sriov_pf_get(const char *name, struct sriov_pf *pf, char *msg, size_t len)
{
	char rel[PATH_MAX];
	int rc;

	memset(pf, 0, sizeof(*pf));
	snprintf(pf->name, sizeof(pf->name), "%s", name);
	snprintf(rel, sizeof(rel), "class/net/%s", name);
	if (!exists(rel)) {
		snprintf(msg, len,
			 "unknown PF \"%s\": there is no %s/%s; give the PF's netdev name as "
			 "`ip link` shows it",
			 name, sysfs_root, rel);
		return -ENODEV;
	}
	snprintf(rel, sizeof(rel), "class/net/%s/device", name);
	if (sriov_readlink_base(rel, pf->pci, sizeof(pf->pci)) != 0) {
		snprintf(msg, len,
			 "PF \"%s\" is not a PCI device (no %s/%s); give the netdev of an "
			 "SR-IOV capable NIC",
			 name, sysfs_root, rel);
		return -ENOTSUP;
	}
	snprintf(rel, sizeof(rel), "class/net/%s/device/sriov_totalvfs", name);
	rc = read_int(rel, &pf->totalvfs);
	if (rc == 0) {
		snprintf(rel, sizeof(rel), "class/net/%s/device/sriov_numvfs", name);
		rc = read_int(rel, &pf->numvfs);
	}
	if (rc != 0 || pf->totalvfs == 0) {
		snprintf(msg, len,
			 "PF \"%s\" (%s) has no SR-IOV (no usable sriov_totalvfs); enable "
			 "SR-IOV in the NIC's firmware and BIOS, or give another PF",
			 name, pf->pci);
		return -ENOTSUP;
	}
	return 0;
}

int sriov_vf_refresh(struct sriov_vf *vf)
{
	char rel[PATH_MAX], grp[32], path[PATH_MAX];
	struct dirent *e;
	DIR *d;

	snprintf(rel, sizeof(rel), "bus/pci/devices/%s", vf->pci);
	if (!exists(rel))
		return -ENOENT;
	snprintf(rel, sizeof(rel), "bus/pci/devices/%s/driver", vf->pci);
	sriov_readlink_base(rel, vf->driver, sizeof(vf->driver));
	snprintf(rel, sizeof(rel), "bus/pci/devices/%s/iommu_group", vf->pci);
	vf->iommu_group = -1;
	if (sriov_readlink_base(rel, grp, sizeof(grp)) == 0) {
		char *end;
		long g = strtol(grp, &end, 10);

		if (end != grp && *end == '\0' && g >= 0 && g <= INT_MAX)
			vf->iommu_group = (int)g;
	}
	vf->netdev[0] = '\0';
	vf->netdev_up = false;
	snprintf(rel, sizeof(rel), "bus/pci/devices/%s/net", vf->pci);
	d = full_path(rel, path, sizeof(path)) == 0 ? opendir(path) : NULL;
	while (d != NULL && (e = readdir(d)) != NULL) {
		char flags[32];

		if (e->d_name[0] == '.')
			continue;
		snprintf(vf->netdev, sizeof(vf->netdev), "%.15s", e->d_name);
		snprintf(rel, sizeof(rel), "class/net/%s/flags", vf->netdev);
		if (sriov_read(rel, flags, sizeof(flags)) == 0)
			vf->netdev_up = (strtoul(flags, NULL, 0) & IFF_UP_BIT) != 0;
		break;
	}
	if (d != NULL)
		closedir(d);
	return 0;
}

int sriov_vf_get(const struct sriov_pf *pf, int index, struct sriov_vf *vf, char *msg, size_t len)
{
	char rel[PATH_MAX];

	memset(vf, 0, sizeof(*vf));
	snprintf(vf->pf, sizeof(vf->pf), "%s", pf->name);
	snprintf(vf->pf_pci, sizeof(vf->pf_pci), "%s", pf->pci);
	vf->vf_index = index;
	snprintf(rel, sizeof(rel), "class/net/%s/device/virtfn%d", pf->name, index);
	if (sriov_readlink_base(rel, vf->pci, sizeof(vf->pci)) != 0 || sriov_vf_refresh(vf) != 0) {
		snprintf(msg, len,
			 "PF \"%s\": VF %d has no device (%s/%s missing) although "
			 "sriov_numvfs is %d",
			 pf->name, index, sysfs_root, rel, pf->numvfs);
		return -ENOENT;
	}
	return 0;
}

int sriov_pci_driver(const char *bdf, char *drv, size_t len)
{
	char rel[PATH_MAX];

	drv[0] = '\0';
	snprintf(rel, sizeof(rel), "bus/pci/devices/%s", bdf);
	if (!exists(rel))
		return -ENOENT;
	snprintf(rel, sizeof(rel), "bus/pci/devices/%s/driver", bdf);
	sriov_readlink_base(rel, drv, len);
	return 0;
}

void sriov_vfio_device(const struct sriov_vf *vf, char *buf, size_t len)
{
	if (vf->iommu_group < 0)
		buf[0] = '\0';
	else
		snprintf(buf, len, "/dev/vfio/%s%d", sriov_noiommu() ? "noiommu-" : "",
			 vf->iommu_group);
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

/* Polls the driver link until it names want ("" = unbound). */
static bool wait_driver(struct sriov_vf *vf, const char *want)
{
	for (unsigned int waited = 0;; waited += 5) {
		sriov_vf_refresh(vf);
		if (strcmp(vf->driver, want) == 0)
			return true;
		if (waited >= timeout_ms)
			return false;
		sleep_ms(5);
	}
}

/* Writes and reports the step that failed. */
static int step_write(const struct sriov_vf *vf, const char *rel, const char *value, char *msg,
		      size_t len)
{
	int rc = sriov_write(rel, value);

	if (rc != 0)
		snprintf(msg, len, "VF %s: writing \"%s\" to %s/%s failed: %s", vf->pci,
			 strcmp(value, "\n") == 0 ? "\\n" : value, sysfs_root, rel, strerror(-rc));
	return rc;
}

static int unbind(struct sriov_vf *vf, char *msg, size_t len)
{
	char rel[PATH_MAX], drv[SRIOV_DRV_LEN];
	int rc;

	if (vf->driver[0] == '\0')
		return 0;
	snprintf(drv, sizeof(drv), "%s", vf->driver);
	snprintf(rel, sizeof(rel), "bus/pci/devices/%s/driver/unbind", vf->pci);
	rc = step_write(vf, rel, vf->pci, msg, len);
	if (rc != 0)
		return rc;
	if (!wait_driver(vf, "")) {
		snprintf(msg, len, "VF %s: still bound to %s %u ms after the unbind", vf->pci, drv,
			 timeout_ms);
		return -EIO;
	}
	return 0;
}

static int override(struct sriov_vf *vf, const char *drv, char *msg, size_t len)
{
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "bus/pci/devices/%s/driver_override", vf->pci);
	return step_write(vf, rel, drv, msg, len);
}

int sriov_restore_driver(struct sriov_vf *vf, const char *orig, char *msg, size_t len)
{
	int rc;

	sriov_vf_refresh(vf);
	if (strcmp(vf->driver, orig) == 0 && orig[0] != '\0')
		return 0;
	if (strcmp(vf->driver, SRIOV_VFIO) == 0 && (rc = unbind(vf, msg, len)) != 0)
		return rc;
	if ((rc = override(vf, "\n", msg, len)) != 0)
		return rc;
	if (orig[0] == '\0' || vf->driver[0] != '\0')
		return 0;
	rc = step_write(vf, "bus/pci/drivers_probe", vf->pci, msg, len);
	if (rc != 0)
		return rc;
	if (!wait_driver(vf, orig)) {
		snprintf(msg, len,
			 "VF %s: %s did not take it back within %u ms of drivers_probe (driver "
			 "now: %s); check that %s is loaded (`modprobe %s`)",
			 vf->pci, orig, timeout_ms, vf->driver[0] ? vf->driver : "none", orig,
			 orig);
		return -EIO;
	}
	return 0;
}

int sriov_bind_vfio(struct sriov_vf *vf, char *orig, size_t olen, char *msg, size_t len)
{
	char rmsg[512];
	int rc;

	orig[0] = '\0';
	if (sriov_vf_refresh(vf) != 0) {
		snprintf(msg, len, "VF %s: the device is gone (%s/bus/pci/devices/%s)", vf->pci,
			 sysfs_root, vf->pci);
		return -ENODEV;
	}
	if (!sriov_vfio_loaded()) {
		snprintf(msg, len,
			 "VF %s: the vfio-pci driver is not loaded (no %s/bus/pci/drivers/"
			 "vfio-pci); run `modprobe vfio-pci`",
			 vf->pci, sysfs_root);
		return -ENOENT;
	}
	if (strcmp(vf->driver, SRIOV_VFIO) == 0) {
		snprintf(msg, len,
			 "VF %s is already bound to vfio-pci by someone else (another DPDK "
			 "application may use it)",
			 vf->pci);
		return -EBUSY;
	}
	if (vf->iommu_group < 0 && !sriov_noiommu()) {
		snprintf(msg, len,
			 "VF %s has no IOMMU group, which vfio-pci needs: enable the IOMMU "
			 "(intel_iommu=on or amd_iommu=on, and iommu=pt, on the kernel command "
			 "line) or, without one, vfio's unsafe noiommu mode",
			 vf->pci);
		return -ENXIO;
	}
	if (vf->netdev_up) {
		snprintf(msg, len,
			 "VF %s is in use: its netdev %s is up; bring it down (`ip link set %s "
			 "down`) or leave the VF out of the physnet",
			 vf->pci, vf->netdev, vf->netdev);
		return -EBUSY;
	}
	snprintf(orig, olen, "%s", vf->driver);
	if ((rc = unbind(vf, msg, len)) != 0)
		goto rollback;
	if ((rc = override(vf, SRIOV_VFIO, msg, len)) != 0)
		goto rollback;
	rc = step_write(vf, "bus/pci/drivers/" SRIOV_VFIO "/bind", vf->pci, msg, len);
	if (rc != 0)
		goto rollback;
	if (!wait_driver(vf, SRIOV_VFIO)) {
		snprintf(msg, len, "VF %s: not bound to vfio-pci %u ms after the bind (driver: %s)",
			 vf->pci, timeout_ms, vf->driver[0] ? vf->driver : "none");
		rc = -EIO;
		goto rollback;
	}
	if ((rc = override(vf, "\n", msg, len)) != 0)
		goto rollback;
	sriov_vf_refresh(vf);
	if (strcmp(vf->driver, SRIOV_VFIO) != 0) {
		snprintf(msg, len, "VF %s: bound to %s instead of vfio-pci", vf->pci,
			 vf->driver[0] ? vf->driver : "nothing");
		rc = -EIO;
		goto rollback;
	}
	return 0;
rollback:
	if (sriov_restore_driver(vf, orig, rmsg, sizeof(rmsg)) != 0) {
		size_t n = strlen(msg);

		snprintf(msg + n, len - n, "; restoring %s also failed: %s",
			 orig[0] ? orig : "the unbound state", rmsg);
	}
	return rc;
}
