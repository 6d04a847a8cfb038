// SPDX-License-Identifier: Apache-2.0
#ifndef JOURNALVAULT_CSODIUM_SHIM_H
#define JOURNALVAULT_CSODIUM_SHIM_H
#include <sodium.h>
#endif
