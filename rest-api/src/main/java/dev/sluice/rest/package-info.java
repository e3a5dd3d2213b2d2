/**
 * Sluice's REST API (docs/rest-api.md): a thin Javalin skin over any {@link
 * dev.sluice.core.RateLimiter}.
 *
 * <p>Start with {@link dev.sluice.rest.SluiceApi}: its constructor holds the route table. Request
 * and answer bodies are records ({@link dev.sluice.rest.CheckRequest}, {@link
 * dev.sluice.rest.DecisionBody}, ...); every error is an {@link dev.sluice.rest.ApiError} mapped in
 * one place; {@code openapi.json} beside this package is the contract, checked against the routes
 * and records by a test.
 */
@NullMarked
package dev.sluice.rest;

import org.jspecify.annotations.NullMarked;
