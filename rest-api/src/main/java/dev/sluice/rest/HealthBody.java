package dev.sluice.rest;

/**
 * The answer of {@code /health/live} and {@code /health/ready}.
 *
 * @param status {@code UP} or {@code DOWN}
 * @param detail why, in a few words
 */
public record HealthBody(String status, String detail) {}
