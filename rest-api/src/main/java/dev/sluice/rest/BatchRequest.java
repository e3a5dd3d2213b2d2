package dev.sluice.rest;

import java.util.List;
import org.jspecify.annotations.Nullable;

/** The body of {@code POST /v1/check/batch}: {@code {"checks": [ {...}, ... ]}}. */
public record BatchRequest(@Nullable List<CheckRequest> checks) {}
