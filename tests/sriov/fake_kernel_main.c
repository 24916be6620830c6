/* SPDX-License-Identifier: BSD-3-Clause */
/* fake_kernel create DIR [--no-vfio] [--no-iommu BDF]... [--netdev-up BDF]...
 * fake_kernel serve DIR
 * See tests/sriov/fake_sysfs.sh, which builds and runs this. */
#include <stdio.h>
#include <string.h>

#include "fake_kernel.h"

int main(int argc, char **argv)
{
	struct fk_opts o = {.fifos = true};
	int rc;

	if (argc >= 3 && strcmp(argv[1], "serve") == 0) {
		rc = fk_serve(argv[2]);
		if (rc != 0)
			fprintf(stderr, "fake_kernel: serve %s: %s\n", argv[2], strerror(-rc));
		return rc != 0;
	}
	if (argc < 3 || strcmp(argv[1], "create") != 0) {
		fprintf(stderr, "usage: fake_kernel create DIR [--no-vfio] [--no-iommu BDF] "
				"[--netdev-up BDF] | fake_kernel serve DIR\n");
		return 2;
	}
	for (int i = 3; i < argc; i++) {
		if (strcmp(argv[i], "--no-vfio") == 0) {
			o.no_vfio = true;
		} else if (strcmp(argv[i], "--no-iommu") == 0 && i + 1 < argc &&
			   o.n_no_iommu < FK_MAX_LIST) {
			o.no_iommu[o.n_no_iommu++] = argv[++i];
		} else if (strcmp(argv[i], "--netdev-up") == 0 && i + 1 < argc &&
			   o.n_netdev_up < FK_MAX_LIST) {
			o.netdev_up[o.n_netdev_up++] = argv[++i];
		} else {
			fprintf(stderr, "fake_kernel: unknown option \"%s\"\n", argv[i]);
			return 2;
		}
	}
	rc = fk_create(argv[2], &o);
	if (rc != 0)
		fprintf(stderr, "fake_kernel: create %s: %s\n", argv[2], strerror(-rc));
	return rc != 0;
}
