/*
 * gpualloc.c — module entry point: GUCs and background worker registration.
 */
#include "postgres.h"

#include "fmgr.h"

PG_MODULE_MAGIC;

PGDLLEXPORT void _PG_init(void);

void
_PG_init(void)
{
}
