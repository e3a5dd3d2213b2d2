package dev.sluice.rest;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The body of {@code POST /v1/check/batch}: {@code {"checks": [ {...}, ... ], "mode": "all"}}.
 *
 * @param checks the checks, 1 to the configured maximum
 * @param mode {@code each} (the default: every check on its own) or {@code all} (every check or
 *     none)
 */
public record BatchRequest(@Nullable List<CheckRequest> checks, @Nullable String mode) {}
