package dev.sluice.rest;

/**
 * Every error the API answers: {@code {"error": "<code>", "message": "<human text>"}}.
 *
 * @param error a stable code from {@link ApiError}, for programs
 * @param message what went wrong and how to fix it, for people
 */
public record ErrorBody(String error, String message) {}
