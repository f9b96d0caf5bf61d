/*
 * sim_result.c — freeing a simulated run's result (sim_result.h).
 */
#include "sim/sim_result.h"

#include <stdlib.h>

void
ga_sim_result_destroy(ga_sim_result *res)
{
	if (res == NULL)
		return;
	ga_run_record_destroy(res->record);
	free(res->jobs);
	free(res);
}
