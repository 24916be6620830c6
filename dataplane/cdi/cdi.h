/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * podwired's CDI specs: one file per kind in the CDI directory (--cdi-dir,
 * default /var/run/cdi), kept current with the ports and the VF
 * allocations, written atomically (a crash leaves the old file or the new
 * one, never a part) and removed at a clean stop. Control thread only.
 */
#ifndef PODWIRE_CDI_H
#define PODWIRE_CDI_H

#include <cjson/cJSON.h>

/* Starts keeping the specs in dir ("" : none are written, cdi.list still
 * answers); dev_root is where the host's device nodes are. Removes the
 * temporary files a crash left, writes the specs, and from now on
 * rewrites them after every change of ports or VFs (NOTIFY_* events, see
 * core/notify.h), once per API request. 0, or -ENOMEM (logged). The "cdi"
 * module (core/module.h) starts it with --cdi-dir and --dev-root. */
int cdi_start(const char *dir, const char *dev_root);

/* Rebuilds the specs and writes those that changed. */
void cdi_sync(void);

/* At a clean stop: removes the spec files. */
void cdi_stop(void);

/* cdi.list's result: the directory, the devices, what was skipped and
 * why, and the documents. */
cJSON *cdi_list_json(void);

#endif
