/* SPDX-License-Identifier: BSD-3-Clause */
/* cdi.list: the CDI devices podwired offers, and their spec documents
 * (`podwirectl cdi write DIR` writes those for runtimes reading /etc/cdi). */
#include "api/registry.h"
#include "cdi/cdi.h"

static cJSON *h_cdi_list(const cJSON *params, struct api_err *err)
{
	(void)params;
	(void)err;
	return cdi_list_json();
}

API_HANDLER(CDI_LIST, h_cdi_list)
