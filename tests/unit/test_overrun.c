/*
 * test_overrun.c — the planned end of running jobs.
 */
#include "unit.h"

#include "model/overrun.h"

TEST(running_end_inside_estimate_is_estimated_end)
{
	/* started 3 steps ago, estimated 10: 7 steps to go */
	CHECK_INT_EQ(ga_running_end_step(-3, 10), 7);
	/* ends right after step 0 */
	CHECK_INT_EQ(ga_running_end_step(-9, 10), 1);
	/* starts at step 0 */
	CHECK_INT_EQ(ga_running_end_step(0, 4), 4);
}

TEST(running_end_past_estimate_grows_with_elapsed_time)
{
	int			prev = 0;

	/* still running at its estimated end: a quarter of 10 steps more */
	CHECK_INT_EQ(ga_running_end_step(-10, 10), 3);
	/* a short job past its estimate: at least one more step */
	CHECK_INT_EQ(ga_running_end_step(-2, 1), 1);
	/* a quarter of 40 steps run */
	CHECK_INT_EQ(ga_running_end_step(-40, 10), 10);
	CHECK_INT_EQ(ga_running_end_step(-41, 10), 11);
	for (int elapsed = 11; elapsed < 500; elapsed++)
	{
		int			end = ga_running_end_step(-elapsed, 10);

		CHECK_MSG(end >= 1 && end >= prev,
				  "elapsed %d: end %d after %d", elapsed, end, prev);
		prev = end;
	}
}
