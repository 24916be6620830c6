/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwire-vdev's readers, run whole (its main, renamed): what a container
 * hands it is outside input. The first byte picks the way in and the
 * options, the rest is the document:
 *   bits 0-1  0: a FILE (device-info, podwire.json, network-status JSON or
 *             a downward-API annotations file); 1: a CDI device's
 *             environment variable; 2: --docker over a directory holding
 *             the document as one endpoint's podwire.json; 3: as 0
 *   bit 2     --vdev-only
 *   bit 3     --interface net1
 *   bit 4     --container 0123abcd
 *   bit 5     --mac 02:00:00:00:00:01
 *   bit 6     --queues
 */
#include <sys/stat.h>

#include "fuzz.h"

#define main podwire_vdev_main
#include "../../cni/podwire_vdev.c"
#undef main

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[16], dockerdir[128], docker_opt[160];
	uint8_t how;
	int argc = 0;

	if (size < 1)
		return 0;
	how = data[0];
	data++;
	size--;
	argv[argc++] = "podwire-vdev";
	if (how & 4)
		argv[argc++] = "--vdev-only";
	if (how & 8)
		argv[argc++] = "--interface=net1";
	if (how & 16)
		argv[argc++] = "--container=0123abcd";
	if (how & 32)
		argv[argc++] = "--mac=02:00:00:00:00:01";
	if (how & 64)
		argv[argc++] = "--queues";
	unsetenv("PODWIRE_DEVINFO_PORT_FUZZ");
	switch (how & 3) {
	case 1: {
		char *s = fuzz_str(data, size);

		setenv("PODWIRE_DEVINFO_PORT_FUZZ", s, 1);
		free(s);
		break;
	}
	case 2:
		snprintf(dockerdir, sizeof(dockerdir), "%s/docker", fuzz_dir());
		mkdir(dockerdir, 0700);
		snprintf(docker_opt, sizeof(docker_opt), "%s/ep", dockerdir);
		mkdir(docker_opt, 0700);
		snprintf(docker_opt, sizeof(docker_opt), "docker/ep/podwire.json");
		fuzz_file(docker_opt, data, size);
		snprintf(docker_opt, sizeof(docker_opt), "--docker=%s", dockerdir);
		argv[argc++] = docker_opt;
		break;
	default:
		argv[argc++] = (char *)fuzz_file("doc", data, size);
	}
	argv[argc] = NULL;
	optind = 0; /* glibc: a full restart of getopt */
	podwire_vdev_main(argc, argv);
	unsetenv("PODWIRE_DEVINFO_PORT_FUZZ");
	return 0;
}
