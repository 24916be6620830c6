/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwired's state file (state.json) as start-up reads it: the strict JSON
 * file reader, then each network and port through the parsers the API
 * uses (a restore is held to exactly what the API accepts).
 */
#include "fuzz.h"

#include "files.h"
#include "model/network.h"
#include "model/port_conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const cJSON *item;
	const char *field;
	char msg[1024];
	cJSON *doc;

	fuzz_file("state.json", data, size);
	if (state_file_read(fuzz_dir(), "state.json", &doc, msg, sizeof(msg)) != 0)
		return 0;
	(void)api_get_int(doc, "version", 1);
	cJSON_ArrayForEach (item, cJSON_GetObjectItemCaseSensitive(doc, "networks")) {
		struct net_conf c;

		net_conf_parse(item, &c, msg, sizeof(msg), &field);
	}
	cJSON_ArrayForEach (item, cJSON_GetObjectItemCaseSensitive(doc, "ports")) {
		struct port_conf c;

		port_conf_parse(item, false, &c, msg, sizeof(msg), &field);
	}
	cJSON_Delete(doc);
	return 0;
}
