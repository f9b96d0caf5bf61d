/*
 * caller.c — who is calling the API.
 *
 * The API functions run as SECURITY DEFINER so they can maintain tables the
 * caller may not touch directly; inside them current_user is the extension
 * owner.  Tenant checks need the role that made the call, which is the outer
 * user: the role set by login or SET ROLE, unchanged by SECURITY DEFINER.
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(gpualloc_caller_role);

Datum
gpualloc_caller_role(PG_FUNCTION_ARGS)
{
	char	   *role = GetUserNameFromId(GetOuterUserId(), false);

	PG_RETURN_DATUM(DirectFunctionCall1(namein, CStringGetDatum(role)));
}
