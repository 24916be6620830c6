/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of dataplane/sriov.c against the fake sysfs tree of
 * tests/sriov/fake_kernel.c, whose PCI core runs in process from the write
 * hook: discovery, the vfio-pci binding steps in order, their errors and
 * the rollback. */
#include <errno.h>
#include <limits.h>

#include "../sriov/fake_kernel.h"
#include "sriov/sriov.h"
#include "unit.h"

static char base[64]; /* scratch directory, made by main */
static char root[128];
static int n_trees;
static const char *fail_rel; /* a write to a path ending so fails ... */
static int fail_rc;	     /* ... with this */
static const char *drop_rel; /* a write to a path ending so has no effect */

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && strcmp(s + n - m, tail) == 0;
}

/* The kernel, in process: the fake PCI core, plus injected failures. */
static int hook(const char *path, const char *value)
{
	if (fail_rel != NULL && ends_with(path, fail_rel))
		return fail_rc;
	if (drop_rel != NULL && ends_with(path, drop_rel))
		return 0;
	return fk_write(root, path, value);
}

/* A fresh tree (fk_opts o) as the sysfs root. */
static void tree(struct fk_opts o)
{
	snprintf(root, sizeof(root), "%s/sys%d", base, n_trees++);
	mkdir(root, 0755);
	o.fifos = false;
	CU_ASSERT_FATAL(fk_create(root, &o) == 0);
	sriov_set_root(root);
	sriov_set_write_hook(hook);
	sriov_set_timeout_ms(100);
	fail_rel = drop_rel = NULL;
}

/* The journal of writes, "" when none. */
static const char *journal(void)
{
	static char buf[8192];
	char path[256];
	FILE *f;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/fake_kernel.journal", root);
	f = fopen(path, "r");
	if (f != NULL) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

static void clear_journal(void)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/fake_kernel.journal", root);
	unlink(path);
}

static void get_vf(const char *pf_name, int index, struct sriov_vf *vf)
{
	struct sriov_pf pf;
	char msg[512];

	CU_ASSERT_FATAL(sriov_pf_get(pf_name, &pf, msg, sizeof(msg)) == 0);
	CU_ASSERT_FATAL(sriov_vf_get(&pf, index, vf, msg, sizeof(msg)) == 0);
}

static const char *driver_of(const char *bdf)
{
	static char drv[64];

	if (sriov_pci_driver(bdf, drv, sizeof(drv)) != 0)
		return "(no device)";
	return drv;
}

static void test_pf_discovery(void)
{
	struct sriov_pf pf;
	char msg[512];

	tree((struct fk_opts){0});
	ASSERT_INT_EQ(sriov_pf_get("enp1s0f0", &pf, msg, sizeof(msg)), 0);
	ASSERT_STR_EQ(pf.pci, "0000:01:00.0");
	ASSERT_INT_EQ(pf.totalvfs, 8);
	ASSERT_INT_EQ(pf.numvfs, 4);
	ASSERT_INT_EQ(sriov_pf_get("enp1s0f1", &pf, msg, sizeof(msg)), 0);
	ASSERT_STR_EQ(pf.pci, "0000:01:00.1");
	ASSERT_INT_EQ(pf.numvfs, 2);

	ASSERT_INT_EQ(sriov_pf_get("enp9s0", &pf, msg, sizeof(msg)), -ENODEV);
	ASSERT_CONTAINS(msg, "unknown PF \"enp9s0\"");
	ASSERT_CONTAINS(msg, root);
	ASSERT_INT_EQ(sriov_pf_get("eno1", &pf, msg, sizeof(msg)), -ENOTSUP);
	ASSERT_CONTAINS(msg, "has no SR-IOV");
	ASSERT_CONTAINS(msg, "0000:00:19.0");
}

static void test_vf_discovery(void)
{
	struct sriov_pf pf;
	struct sriov_vf vf;
	char msg[512];

	tree((struct fk_opts){.no_iommu = {"0000:01:10.4"},
			      .n_no_iommu = 1,
			      .netdev_up = {"enp1s0f0v3"},
			      .n_netdev_up = 1});
	get_vf("enp1s0f0", 1, &vf);
	ASSERT_STR_EQ(vf.pci, "0000:01:10.2");
	ASSERT_STR_EQ(vf.pf, "enp1s0f0");
	ASSERT_STR_EQ(vf.pf_pci, "0000:01:00.0");
	ASSERT_INT_EQ(vf.vf_index, 1);
	ASSERT_STR_EQ(vf.driver, "iavf");
	ASSERT_INT_EQ(vf.iommu_group, 11);
	ASSERT_STR_EQ(vf.netdev, "enp1s0f0v1");
	CU_ASSERT_FALSE(vf.netdev_up);

	get_vf("enp1s0f0", 2, &vf);
	ASSERT_INT_EQ(vf.iommu_group, -1);
	get_vf("enp1s0f0", 3, &vf);
	ASSERT_STR_EQ(vf.pci, "0000:01:10.6");
	CU_ASSERT_TRUE(vf.netdev_up);
	get_vf("enp1s0f1", 1, &vf);
	ASSERT_STR_EQ(vf.pci, "0000:01:11.2");
	ASSERT_INT_EQ(vf.iommu_group, 15);

	CU_ASSERT_FATAL(sriov_pf_get("enp1s0f0", &pf, msg, sizeof(msg)) == 0);
	ASSERT_INT_EQ(sriov_vf_get(&pf, 4, &vf, msg, sizeof(msg)), -ENOENT);
	ASSERT_CONTAINS(msg, "virtfn4");
}

static void test_pci_driver(void)
{
	char drv[64] = "x";

	tree((struct fk_opts){0});
	ASSERT_INT_EQ(sriov_pci_driver("0000:01:10.0", drv, sizeof(drv)), 0);
	ASSERT_STR_EQ(drv, "iavf");
	ASSERT_INT_EQ(sriov_pci_driver("0000:01:00.1", drv, sizeof(drv)), 0);
	ASSERT_STR_EQ(drv, "ice");
	ASSERT_INT_EQ(sriov_pci_driver("0000:99:00.0", drv, sizeof(drv)), -ENOENT);
	ASSERT_INT_EQ(sriov_write("bus/pci/drivers/iavf/unbind", "0000:01:10.0"), 0);
	ASSERT_INT_EQ(sriov_pci_driver("0000:01:10.0", drv, sizeof(drv)), 0);
	ASSERT_STR_EQ(drv, "");
}

static void test_bind_order_and_restore(void)
{
	struct sriov_vf vf;
	char orig[64], msg[512], over[64], dev[64];

	tree((struct fk_opts){0});
	get_vf("enp1s0f0", 0, &vf);
	ASSERT_INT_EQ(sriov_bind_vfio(&vf, orig, sizeof(orig), msg, sizeof(msg)), 0);
	ASSERT_STR_EQ(orig, "iavf");
	ASSERT_STR_EQ(vf.driver, "vfio-pci");
	ASSERT_STR_EQ(driver_of("0000:01:10.0"), "vfio-pci");
	ASSERT_STR_EQ(vf.netdev, ""); /* iavf's netdev went with it */
	ASSERT_STR_EQ(journal(), "bus/pci/drivers/iavf/unbind 0000:01:10.0\n"
				 "devices/pci0000:00/0000:01:10.0/driver_override vfio-pci\n"
				 "bus/pci/drivers/vfio-pci/bind 0000:01:10.0\n"
				 "devices/pci0000:00/0000:01:10.0/driver_override \n");
	ASSERT_INT_EQ(
	    sriov_read("bus/pci/devices/0000:01:10.0/driver_override", over, sizeof(over)), 0);
	ASSERT_STR_EQ(over, "");
	sriov_vfio_device(&vf, dev, sizeof(dev));
	ASSERT_STR_EQ(dev, "/dev/vfio/10");
	/* The other VFs were not touched. */
	ASSERT_STR_EQ(driver_of("0000:01:10.2"), "iavf");

	clear_journal();
	ASSERT_INT_EQ(sriov_restore_driver(&vf, orig, msg, sizeof(msg)), 0);
	ASSERT_STR_EQ(vf.driver, "iavf");
	ASSERT_STR_EQ(vf.netdev, "enp1s0f0v0");
	ASSERT_STR_EQ(journal(), "bus/pci/drivers/vfio-pci/unbind 0000:01:10.0\n"
				 "devices/pci0000:00/0000:01:10.0/driver_override \n"
				 "bus/pci/drivers_probe 0000:01:10.0\n");
}

/* Each refusal says why and how to fix it, and writes nothing. */
static void test_bind_refusals(void)
{
	struct sriov_vf vf;
	char orig[64], msg[512];

	tree((struct fk_opts){.no_vfio = true});
	get_vf("enp1s0f0", 0, &vf);
	ASSERT_INT_EQ(sriov_bind_vfio(&vf, orig, sizeof(orig), msg, sizeof(msg)), -ENOENT);
	ASSERT_CONTAINS(msg, "modprobe vfio-pci");
	ASSERT_STR_EQ(journal(), "");
	ASSERT_STR_EQ(driver_of("0000:01:10.0"), "iavf");

	tree((struct fk_opts){.no_iommu = {"0000:01:10.2"}, .n_no_iommu = 1});
	get_vf("enp1s0f0", 1, &vf);
	ASSERT_INT_EQ(sriov_bind_vfio(&vf, orig, sizeof(orig), msg, sizeof(msg)), -ENXIO);
	ASSERT_CONTAINS(msg, "0000:01:10.2 has no IOMMU group");
	ASSERT_CONTAINS(msg, "intel_iommu=on");
	ASSERT_CONTAINS(msg, "noiommu");
	ASSERT_STR_EQ(journal(), "");

	tree((struct fk_opts){.netdev_up = {"0000:01:10.4"}, .n_netdev_up = 1});
	get_vf("enp1s0f0", 2, &vf);
	ASSERT_INT_EQ(sriov_bind_vfio(&vf, orig, sizeof(orig), msg, sizeof(msg)), -EBUSY);
	ASSERT_CONTAINS(msg, "netdev enp1s0f0v2 is up");
	ASSERT_STR_EQ(journal(), "");
	ASSERT_STR_EQ(driver_of("0000:01:10.4"), "iavf");

	/* Already on vfio-pci (someone else's). */
	tree((struct fk_opts){0});
	get_vf("enp1s0f0", 0, &vf);
	ASSERT_INT_EQ(sriov_bind_vfio(&vf, orig, sizeof(orig), msg, sizeof(msg)), 0);
	clear_journal();
	ASSERT_INT_EQ(sriov_bind_vfio(&vf, orig, sizeof(orig), msg, sizeof(msg)), -EBUSY);
	ASSERT_CONTAINS(msg, "already bound to vfio-pci");
	ASSERT_STR_EQ(journal(), "");
}

/* noiommu mode: no group needed, and the device node says so. */
static void test_noiommu(void)
{
	struct sriov_vf vf;
	char dev[64], path[256];
	FILE *f;

	tree((struct fk_opts){0});
	get_vf("enp1s0f0", 0, &vf);
	CU_ASSERT_FALSE(sriov_noiommu());
	snprintf(path, sizeof(path), "%s/module/vfio/parameters/enable_unsafe_noiommu_mode", root);
	f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs("Y\n", f);
	fclose(f);
	CU_ASSERT_TRUE(sriov_noiommu());
	sriov_vfio_device(&vf, dev, sizeof(dev));
	ASSERT_STR_EQ(dev, "/dev/vfio/noiommu-10");
}

/* A step failing midway gives the VF back to its driver. */
static void test_bind_rollback(void)
{
	struct sriov_vf vf;
	char orig[64], msg[512], over[64];

	/* The kernel refuses the vfio-pci bind. */
	tree((struct fk_opts){0});
	get_vf("enp1s0f0", 1, &vf);
	fail_rel = "drivers/vfio-pci/bind";
	fail_rc = -EINVAL;
	ASSERT_INT_EQ(sriov_bind_vfio(&vf, orig, sizeof(orig), msg, sizeof(msg)), -EINVAL);
	ASSERT_CONTAINS(msg, "bus/pci/drivers/vfio-pci/bind failed: Invalid argument");
	ASSERT_STR_EQ(driver_of("0000:01:10.2"), "iavf");
	ASSERT_STR_EQ(vf.netdev, "enp1s0f0v1");
	sriov_read("bus/pci/devices/0000:01:10.2/driver_override", over, sizeof(over));
	ASSERT_STR_EQ(over, "");
	ASSERT_STR_EQ(journal(), "bus/pci/drivers/iavf/unbind 0000:01:10.2\n"
				 "devices/pci0000:00/0000:01:10.2/driver_override vfio-pci\n"
				 "devices/pci0000:00/0000:01:10.2/driver_override \n"
				 "bus/pci/drivers_probe 0000:01:10.2\n");

	/* The bind is accepted but nothing happens: a timeout, then rollback. */
	tree((struct fk_opts){0});
	get_vf("enp1s0f0", 1, &vf);
	drop_rel = "drivers/vfio-pci/bind";
	ASSERT_INT_EQ(sriov_bind_vfio(&vf, orig, sizeof(orig), msg, sizeof(msg)), -EIO);
	ASSERT_CONTAINS(msg, "not bound to vfio-pci 100 ms after the bind");
	ASSERT_STR_EQ(driver_of("0000:01:10.2"), "iavf");

	/* The unbind fails: nothing else is written. */
	tree((struct fk_opts){0});
	get_vf("enp1s0f0", 1, &vf);
	fail_rel = "0000:01:10.2/driver/unbind"; /* as written, through the link */
	fail_rc = -EBUSY;
	ASSERT_INT_EQ(sriov_bind_vfio(&vf, orig, sizeof(orig), msg, sizeof(msg)), -EBUSY);
	ASSERT_STR_EQ(driver_of("0000:01:10.2"), "iavf");
	ASSERT_NOT_CONTAINS(journal(), "vfio-pci");

	/* Restoring fails too: both reasons are given. */
	tree((struct fk_opts){0});
	get_vf("enp1s0f0", 1, &vf);
	fail_rel = "drivers/vfio-pci/bind";
	fail_rc = -EINVAL;
	drop_rel = "drivers_probe";
	ASSERT_INT_EQ(sriov_bind_vfio(&vf, orig, sizeof(orig), msg, sizeof(msg)), -EINVAL);
	ASSERT_CONTAINS(msg, "restoring iavf also failed");
	ASSERT_CONTAINS(msg, "modprobe iavf");
}

/* A test tree's FIFO without its fake kernel fails at once, not hangs. */
static void test_fifo_without_reader(void)
{
	char path[256];

	tree((struct fk_opts){0});
	sriov_set_write_hook(NULL);
	snprintf(path, sizeof(path), "%s/bus/pci/drivers_probe", root);
	unlink(path);
	CU_ASSERT_FATAL(mkfifo(path, 0600) == 0);
	ASSERT_INT_EQ(sriov_write("bus/pci/drivers_probe", "0000:01:10.0"), -ENXIO);
}

static void test_root_prefix(void)
{
	sriov_set_root("/some/where///");
	ASSERT_STR_EQ(sriov_root(), "/some/where");
	sriov_set_root(NULL);
	ASSERT_STR_EQ(sriov_root(), "/sys");
}

int main(void)
{
	static const struct unit_test tests[] = {
	    {"PF discovery and errors", test_pf_discovery},
	    {"VF discovery: driver, group, netdev", test_vf_discovery},
	    {"sriov_pci_driver", test_pci_driver},
	    {"bind to vfio-pci: write order; restore", test_bind_order_and_restore},
	    {"refusals: no vfio-pci, no IOMMU group, netdev up, taken", test_bind_refusals},
	    {"noiommu mode", test_noiommu},
	    {"a failure midway rolls back", test_bind_rollback},
	    {"FIFO without reader", test_fifo_without_reader},
	    {"root prefix", test_root_prefix},
	    {NULL, NULL},
	};
	return unit_run_in_tmpdir("sriov", tests, base, sizeof(base));
}
