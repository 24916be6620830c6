/* SPDX-License-Identifier: BSD-3-Clause */
#include "core/config.h"

struct pw_config pw_cfg;
time_t pw_start_time;
