/*
 * advance_reservation.c — the advance reservations of a problem
 * (advance_reservation.h).
 */
#include "model/advance_reservation.h"

#include <stdlib.h>
#include <string.h>

ga_status
ga_problem_set_advance_reservations(ga_problem *p,
									const ga_advance_reservation *reservations,
									int n_reservations, ga_error *err)
{
	ga_advance_reservation *copy = NULL;

	if (n_reservations < 0)
		return ga_error_set(err, GA_EINVAL, "reservation count must not be negative");
	if (n_reservations > 0)
	{
		copy = malloc(sizeof(ga_advance_reservation) * n_reservations);
		if (copy == NULL)
			return ga_error_set(err, GA_ENOMEM, "out of memory copying advance reservations");
		memcpy(copy, reservations, sizeof(ga_advance_reservation) * n_reservations);
	}
	free(p->reservations);
	p->reservations = copy;
	p->n_reservations = n_reservations;
	return GA_OK;
}

const ga_advance_reservation *
ga_advance_reservation_at(const ga_problem *p, int g, int t)
{
	for (int i = 0; i < p->n_reservations; i++)
	{
		const ga_window *w = &p->reservations[i].cells;

		if (g >= w->first_gpu && g < w->first_gpu + w->n_gpus &&
			t >= w->start_step && t < w->end_step)
			return &p->reservations[i];
	}
	return NULL;
}
