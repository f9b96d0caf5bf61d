/*
 * fuzz_scenario_dir.h — a fuzz input turned into a scenario directory, for
 * the targets that read scenarios (fuzz_scenario.c, fuzz_sim.c).
 *
 * The first byte of the input picks how the rest becomes the directory:
 *
 *   below 0x80: the rest is split on NUL bytes into scenario.csv, gpus.csv,
 *               services.csv, demand.csv, jobs.csv and history.csv, in that
 *               order; a file the input does not reach is absent (history.csv
 *               is optional, the others are then an error), and bytes after
 *               a sixth NUL are ignored.
 *   0x80 and up: the rest is the single file number (byte & 0x7f) % 6 of
 *               that list, NUL bytes included, and the other five are a
 *               small valid scenario.
 */
#ifndef GPUALLOC_FUZZ_SCENARIO_DIR_H
#define GPUALLOC_FUZZ_SCENARIO_DIR_H

#include "fuzz_tmp.h"

#define N_FILES 6

static const char *const scenario_files[N_FILES] = {
	"scenario.csv", "gpus.csv", "services.csv", "demand.csv", "jobs.csv", "history.csv"
};

/* The valid scenario around a fuzzed single file. */
static const char *const scenario_fixed[N_FILES] = {
	"key,value\nname,fixed\nstart,2026-03-02 00:00\nend,2026-03-02 06:00\n"
	"step_minutes,30\nhorizon_hours,4\nreplan_minutes,60\npenalty,8\nhalf_life_hours,12\n",
	"pool,node,gpus\na100,n1,8\na100,n2,8\nh100,n3,4\n",
	"service,pool,priority,capacity_per_gpu,churn_limit,min_gpus,max_gpus\n"
	"chat,a100,4,400,2,1,8\nembed,h100,2,100,0,0,16\n",
	"service,ts,traffic\nchat,2026-03-02 00:00,535.6\nembed,2026-03-02 00:00,12\n"
	"chat,2026-03-02 01:00,900\nchat,2026-03-02 03:00,0\n",
	"job,kind,pool,priority,submit,gpus_min,gpus_max,work_gpu_hours,features\n"
	"j1,training,a100,1,2026-03-02 00:00,1,4,7.48,strategy=lora;technique=rlvr;params_b=8;tokens_m=19\n"
	"j2,inference,h100,2,2026-03-01 23:00,2,4,3,params_b=70;tokens_m=500\n"
	"j3,quantization,a100,1,2026-03-02 02:30,1,1,1,params_b=8;algorithm=awq\n"
	"j4,other,a100,1,2026-03-02 01:00,8,8,12,\n",
	"kind,gpus,features,actual_hours\n"
	"training,2,strategy=full;technique=sft;params_b=7;tokens_m=211;epochs=3,30.1\n"
	"inference,1,params_b=8;tokens_m=100,2.5\n"
	"quantization,1,params_b=8;algorithm=gptq,1.2\n",
};

/* Write the scenario directory of a non-empty input; returns its path. */
static inline const char *
fuzz_scenario_dir(const uint8_t *data, size_t size)
{
	const char *dir = fuzz_tmp_dir(scenario_files, N_FILES);

	if (data[0] & 0x80)
	{
		int			which = (data[0] & 0x7f) % N_FILES;

		for (int i = 0; i < N_FILES; i++)
			if (i == which)
				fuzz_tmp_write(dir, scenario_files[i], data + 1, size - 1);
			else
				fuzz_tmp_write(dir, scenario_files[i], (const uint8_t *) scenario_fixed[i],
							   strlen(scenario_fixed[i]));
	}
	else
	{
		size_t		at = 1;
		int			i = 0;

		/* at == size + 1 once the last part has been written */
		for (; i < N_FILES && at <= size; i++)
		{
			const uint8_t *nul = memchr(data + at, '\0', size - at);
			size_t		stop = nul != NULL ? (size_t) (nul - data) : size;

			fuzz_tmp_write(dir, scenario_files[i], data + at, stop - at);
			at = stop + 1;
		}
		for (; i < N_FILES; i++)
			fuzz_tmp_remove(dir, scenario_files[i]);
	}
	return dir;
}

#endif
