/*
 * calendar.c — UTC civil time in minutes since the epoch: the day counts of
 * the proleptic Gregorian calendar (Howard Hinnant's days_from_civil and
 * civil_from_days), the scenario format's timestamp text, and the day and
 * week positions the generator's daily shapes and the weekly forecaster
 * use.  See calendar.h.
 */
#include "model/calendar.h"

#include <ctype.h>
#include <stdio.h>

/* a mod m in [0, m), for m > 0, whatever the sign of a. */
static int64_t
floor_mod(int64_t a, int64_t m)
{
	int64_t		r = a % m;

	return r < 0 ? r + m : r;
}

/* Whole days since the epoch of a minute, rounded down. */
static int64_t
day_of_minute(int64_t minutes)
{
	return (minutes - floor_mod(minutes, 1440)) / 1440;
}

int64_t
ga_civil_days(int y, int m, int d)
{
	int64_t		era;
	int			yoe,
				doy,
				doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (int) (y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* The civil date of a day count; the inverse of ga_civil_days. */
static void
civil_date(int64_t days, int *y, int *m, int *d)
{
	int64_t		z = days + 719468;
	int64_t		era = (z >= 0 ? z : z - 146096) / 146097;
	int			doe = (int) (z - era * 146097);
	int			yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int			doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int			mp = (5 * doy + 2) / 153;

	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int) (yoe + era * 400) + (*m <= 2);
}

void
ga_format_minutes(int64_t minutes, char *buf, size_t len)
{
	int			rem = ga_minute_of_day(minutes);
	int			y,
				m,
				d;

	civil_date(day_of_minute(minutes), &y, &m, &d);
	snprintf(buf, len, "%04d-%02d-%02d %02d:%02d", y, m, d, rem / 60, rem % 60);
}

static bool
digits(const char **s, int n, int *out)
{
	int			v = 0;

	for (int i = 0; i < n; i++)
	{
		if (!isdigit((unsigned char) (*s)[i]))
			return false;
		v = v * 10 + ((*s)[i] - '0');
	}
	*s += n;
	*out = v;
	return true;
}

int
ga_days_in_month(int year, int month)
{
	int64_t		next = month == 12 ? ga_civil_days(year + 1, 1, 1) : ga_civil_days(year, month + 1, 1);

	return (int) (next - ga_civil_days(year, month, 1));
}

ga_status
ga_parse_minutes(const char *text, int64_t *minutes, ga_error *err)
{
	const char *s = text;
	int			y,
				mo,
				d,
				h,
				mi,
				sec = 0;
	bool		ok;

	ok = digits(&s, 4, &y) && *s++ == '-' && digits(&s, 2, &mo) && *s++ == '-' &&
		digits(&s, 2, &d) && (*s == ' ' || *s == 'T') && s++ &&
		digits(&s, 2, &h) && *s++ == ':' && digits(&s, 2, &mi);
	if (ok && *s == ':')
	{
		s++;
		ok = digits(&s, 2, &sec);
	}
	if (ok && (*s == 'Z' || *s == 'z'))
		s++;
	if (!ok || *s != '\0' || y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 ||
		h > 23 || mi > 59 || sec != 0)
		return ga_error_set(err, GA_EINVAL, "must be a UTC time YYYY-MM-DD HH:MM");
	/* read on, 2026-02-30 would be 2026-03-02: a row moved without a word */
	if (d > ga_days_in_month(y, mo))
		return ga_error_set(err, GA_EINVAL, "is not a day of its month");
	*minutes = (ga_civil_days(y, mo, d) * 24 + h) * 60 + mi;
	return GA_OK;
}

int
ga_day_of_week(int64_t minutes)
{
	/* 1970-01-01 was a Thursday. */
	return (int) floor_mod(day_of_minute(minutes) + 3, 7);
}

int
ga_minute_of_day(int64_t minutes)
{
	return (int) floor_mod(minutes, 1440);
}

int
ga_hour_of_week(int64_t hour)
{
	/* Monday 00:00 lies 72 hours before the Thursday of the epoch. */
	return (int) floor_mod(hour + 72, GA_WEEK_HOURS);
}
