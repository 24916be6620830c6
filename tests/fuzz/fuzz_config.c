/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwired's --config FILE: the file is read, each key applied as its
 * option would be, and the settings checked together (cores, paths,
 * group, physnets, CDI), as `podwired --config FILE` does.
 */
#include "fuzz.h"

#include "core/config.h"
#include "daemon/daemon.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[] = {"podwired", "--config", NULL, NULL};
	struct pw_config c;

	argv[2] = (char *)fuzz_file("podwired.json", data, size);
	options_parse(3, argv, &c);
	return 0;
}
