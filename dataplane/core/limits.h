/* SPDX-License-Identifier: BSD-3-Clause */
/* The sizes every module agrees on: ports, workers, the burst. */
#ifndef PODWIRE_CORE_LIMITS_H
#define PODWIRE_CORE_LIMITS_H

#define PW_MAX_PORTS   1024
#define PW_MAX_WORKERS 64
#define PW_BURST       32

#endif
