package dev.sluice.rest;

import java.util.List;

/**
 * The answer to {@code POST /v1/check/batch}.
 *
 * @param allowed every check was allowed
 * @param results one answer per check, in the order of the checks
 */
public record BatchBody(boolean allowed, List<DecisionBody> results) {}
