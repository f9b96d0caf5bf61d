/*
 * calendar.h — UTC civil time counted in minutes (or whole hours) since
 * 1970-01-01 00:00: the "YYYY-MM-DD HH:MM" text of the scenario format and
 * of the real traces, and where a moment falls in the day and the week.
 *
 * It is a model/ module because three subsystems count time this way and
 * must agree: the scenario reader (sim/), the scenario generator (tools/)
 * and the weekly demand forecaster (forecast/), which may only include
 * model/.  The calendar is the proleptic Gregorian one, without leap
 * seconds or time zones.
 */
#ifndef GPUALLOC_CALENDAR_H
#define GPUALLOC_CALENDAR_H

#include "model/common.h"

#define GA_WEEK_HOURS 168

/*
 * Days since 1970-01-01 of a civil date (month 1-12; a day past the month's
 * end counts on into the next month).
 */
int64_t		ga_civil_days(int year, int month, int day);

/* Days of a month (1-12) of a year: 28 to 31. */
int			ga_days_in_month(int year, int month);

/*
 * Minutes since the epoch of "YYYY-MM-DD HH:MM" (also with "T" for the
 * space, seconds ":00" and a trailing "Z"); years from 1970 on, a day its
 * month has.  The message names the rule broken.
 */
ga_status	ga_parse_minutes(const char *text, int64_t *minutes, ga_error *err);

/* "YYYY-MM-DD HH:MM" of minutes since the epoch, the format's own form. */
void		ga_format_minutes(int64_t minutes, char *buf, size_t len);

/* Day of week of a minute, Monday 0 .. Sunday 6. */
int			ga_day_of_week(int64_t minutes);

/* Minute of the day (0 .. 1439) of a minute. */
int			ga_minute_of_day(int64_t minutes);

/* Hour of week (Monday 00:00 = 0 .. 167) of an hour index. */
int			ga_hour_of_week(int64_t hour);

#endif
