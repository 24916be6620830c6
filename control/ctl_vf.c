/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwirectl's printers for the SR-IOV VF pools (vf list, alloc, release) (podwirectl.c has the
 * command table).
 */
#include <stdio.h>
#include <string.h>

#include "api.h"
#include "ctl.h"
#include "ctl_table.h"

static const struct column vf_cols[] = {{"PF", API_R_PF, COL_STR},
					{"VF", API_R_VF_INDEX, COL_INT},
					{"PCI", API_F_PCI, COL_STR},
					{"DRIVER", API_R_DRIVER, COL_STR},
					{"IOMMU", API_R_IOMMU_GROUP, COL_INT},
					{"STATE", API_R_STATE, COL_STR},
					{"OWNER", API_F_OWNER, COL_STR},
					{NULL}};

/* One table per physnet, its counts above and the reasons VFs are
 * unavailable below. */
void ctl_print_vf_list(const cJSON *result)
{
	const cJSON *pn, *pf, *vf, *physnets = ctl_member(result, API_R_PHYSNETS);

	if (cJSON_GetArraySize(physnets) == 0)
		printf("no physnets: podwired was started without --physnets\n");
	cJSON_ArrayForEach (pn, physnets) {
		printf("%sphysnet %s: %llu VFs, %llu free, %llu used, %llu unavailable; PFs",
		       pn == physnets->child ? "" : "\n", ctl_str(pn, API_F_PHYSNET),
		       ctl_u64(ctl_member(pn, API_R_TOTAL)), ctl_u64(ctl_member(pn, API_R_FREE)),
		       ctl_u64(ctl_member(pn, API_R_USED)),
		       ctl_u64(ctl_member(pn, API_R_UNAVAILABLE)));
		cJSON_ArrayForEach (pf, ctl_member(pn, API_R_PFS))
			printf(" %s (%s VFs %lld-%lld)", ctl_str(pf, API_R_PF),
			       ctl_str(pf, API_F_PCI),
			       (long long)api_get_int(pf, API_R_FIRST_VF, 0),
			       (long long)api_get_int(pf, API_R_LAST_VF, 0));
		putchar('\n');
		ctl_print_table(ctl_member(pn, API_R_VFS), vf_cols);
		cJSON_ArrayForEach (vf, ctl_member(pn, API_R_VFS))
			if (strcmp(ctl_str(vf, API_R_REASON), "-") != 0)
				printf("  %s: %s\n", ctl_str(vf, API_F_PCI),
				       ctl_str(vf, API_R_REASON));
	}
}

void ctl_print_vf_alloc(const cJSON *result)
{
	const cJSON *v = result;

	printf("VF %s (PF %s VF %ld) allocated to %s in physnet %s: %s (was %s), %s\n",
	       ctl_str(v, API_F_PCI), ctl_str(v, API_R_PF), api_get_int(v, API_R_VF_INDEX, -1),
	       ctl_str(v, API_F_OWNER), ctl_str(v, API_F_PHYSNET), ctl_str(v, API_R_DRIVER),
	       ctl_str(v, API_R_ORIGINAL_DRIVER), ctl_str(v, API_R_VFIO_DEVICE));
	printf("VF settings: %s\n", ctl_str(v, API_R_VF_CONFIG));
}

void ctl_print_vf_released(const cJSON *params, const cJSON *result)
{
	const cJSON *v, *released = ctl_member(result, API_R_RELEASED);

	if (cJSON_GetArraySize(released) == 0) {
		if (ctl_member(params, API_F_PCI) != NULL)
			printf("VF %s is not allocated: nothing to release\n",
			       ctl_str(params, API_F_PCI));
		else
			printf("owner %s holds no VF: nothing to release\n",
			       ctl_str(params, API_F_OWNER));
	}
	cJSON_ArrayForEach (v, released)
		printf("VF %s released by %s (physnet %s), back on %s\n", ctl_str(v, API_F_PCI),
		       ctl_str(v, API_F_OWNER), ctl_str(v, API_F_PHYSNET),
		       ctl_str(v, API_R_DRIVER));
}
