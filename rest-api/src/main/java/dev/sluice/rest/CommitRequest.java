package dev.sluice.rest;

import org.jspecify.annotations.Nullable;

/**
 * The body of {@code POST /v1/commit}: the reservation to settle and its actual cost.
 *
 * <pre>
 * {"reservationId": "AQAAAZ...", "cost": 1234}
 * </pre>
 *
 * @param reservationId what {@code POST /v1/reserve} answered
 * @param cost the actual cost, 0 or more: what the estimate was over is given back, what it was
 *     under is charged
 */
public record CommitRequest(@Nullable String reservationId, @Nullable Long cost) {}
