/*
 * overrun.h — how long a running batch job is planned to keep its block.
 *
 * A plan pins every running job on its block until its estimated end.  A
 * job still running past that end has shown that its estimate was short.
 * Planning it to end at every next step would let each plan hand its GPUs
 * to a service or a queued job a step later, again and again, and the
 * service's growth would be promised on GPUs that never come free.  Job
 * runtimes are heavy-tailed: the longer a job has overrun, the longer it is
 * likely to go on.  So an overrunning job is planned to hold its block for
 * a fraction of the time it has run so far (at least one step), and that
 * horizon grows with every plan for as long as it keeps running.
 */
#ifndef GPUALLOC_OVERRUN_H
#define GPUALLOC_OVERRUN_H

/* The share of its elapsed time an overrunning job is planned to run on. */
#define GA_OVERRUN_FRACTION 0.25

/*
 * The step, relative to the plan's step 0, at which a running job started at
 * start_step (<= 0) and estimated to take duration steps is planned to end;
 * always >= 1, since the job holds its block at step 0.
 */
int			ga_running_end_step(int start_step, int duration);

#endif
