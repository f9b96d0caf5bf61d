/*
 * test_calendar.c — the civil time of model/calendar.h: timestamp text both
 * ways, and the day and week positions of a minute or an hour.
 */
#include "unit.h"
#include "model/calendar.h"

TEST(calendar_parses_times)
{
	int64_t		m;

	CHECK_INT_EQ(ga_parse_minutes("1970-01-01 00:00", &m, NULL), GA_OK);
	CHECK_INT_EQ(m, 0);
	CHECK_INT_EQ(ga_parse_minutes("2024-03-01T10:30:00", &m, NULL), GA_OK);
	/* 2024-03-01 is day 19783 since the epoch */
	CHECK_INT_EQ(m, (19783LL * 24 + 10) * 60 + 30);
	CHECK_INT_EQ(ga_parse_minutes("2024-03-01 25:00", &m, NULL), GA_EINVAL);
	CHECK_INT_EQ(ga_parse_minutes("2024-03-01 10:00 junk", &m, NULL), GA_EINVAL);
}

TEST(calendar_formats_times_it_parses)
{
	char		buf[32];
	int64_t		m;

	ga_format_minutes((19783LL * 24 + 10) * 60 + 30, buf, sizeof(buf));
	CHECK_MSG(strcmp(buf, "2024-03-01 10:30") == 0, "got %s", buf);
	ga_format_minutes(0, buf, sizeof(buf));
	CHECK_MSG(strcmp(buf, "1970-01-01 00:00") == 0, "got %s", buf);
	/* every 7 hours and 13 minutes over 60 years, leap days included */
	for (int64_t t = 0; t < 60LL * 366 * 1440; t += 433)
	{
		ga_format_minutes(t, buf, sizeof(buf));
		if (ga_parse_minutes(buf, &m, NULL) != GA_OK || m != t)
		{
			CHECK_MSG(false, "%lld formats as %s, which parses back as %lld",
					  (long long) t, buf, (long long) m);
			break;
		}
	}
}

TEST(calendar_day_and_week_positions)
{
	int64_t		monday;

	/* 1970-01-01 was a Thursday */
	CHECK_INT_EQ(ga_day_of_week(0), 3);
	CHECK_INT_EQ(ga_day_of_week(1439), 3);
	CHECK_INT_EQ(ga_day_of_week(1440), 4);
	/* the day before the epoch, counted back */
	CHECK_INT_EQ(ga_day_of_week(-1), 2);
	CHECK_INT_EQ(ga_minute_of_day(-1), 1439);
	CHECK_INT_EQ(ga_parse_minutes("2026-03-02 14:45", &monday, NULL), GA_OK);
	CHECK_INT_EQ(ga_day_of_week(monday), 0);
	CHECK_INT_EQ(ga_minute_of_day(monday), 14 * 60 + 45);
	CHECK_INT_EQ(ga_day_of_week(monday + 6 * 1440), 6);
	CHECK_INT_EQ(ga_day_of_week(monday + 7 * 1440), 0);
	/* hour of week agrees with day and minute of day at every hour */
	for (int64_t h = -500; h < 3 * GA_WEEK_HOURS; h++)
	{
		int			want = ga_day_of_week(h * 60) * 24 + ga_minute_of_day(h * 60) / 60;

		if (ga_hour_of_week(h) != want)
		{
			CHECK_MSG(false, "hour %lld: hour of week %d, expected %d",
					  (long long) h, ga_hour_of_week(h), want);
			break;
		}
	}
	CHECK_INT_EQ(ga_civil_days(2024, 3, 1), 19783);
	/* a day past the month's end runs on into the next month */
	CHECK_INT_EQ(ga_civil_days(2023, 2, 29), ga_civil_days(2023, 3, 1));
}

/* A day its month lacks is refused, naming the rule; leap days where they fall. */
TEST(calendar_parse_refuses_a_day_its_month_lacks)
{
	int64_t		m;
	ga_error	err;

	CHECK_INT_EQ(ga_parse_minutes("2026-02-29 00:00", &m, &err), GA_EINVAL);
	CHECK_MSG(strstr(err.message, "is not a day of its month") != NULL, "message: %s", err.message);
	CHECK_INT_EQ(ga_parse_minutes("2026-04-31 00:00", &m, &err), GA_EINVAL);
	CHECK_INT_EQ(ga_parse_minutes("2100-02-29 00:00", &m, &err), GA_EINVAL);
	CHECK_INT_EQ(ga_parse_minutes("2024-02-29 00:00", &m, &err), GA_OK);
	CHECK_INT_EQ(ga_parse_minutes("2000-02-29 00:00", &m, &err), GA_OK);
	CHECK_INT_EQ(ga_parse_minutes("2026-12-31 23:59", &m, &err), GA_OK);
	CHECK_INT_EQ(ga_days_in_month(2026, 12), 31);
	CHECK_INT_EQ(ga_days_in_month(2024, 2), 29);
	CHECK_INT_EQ(ga_days_in_month(2026, 9), 30);
}
