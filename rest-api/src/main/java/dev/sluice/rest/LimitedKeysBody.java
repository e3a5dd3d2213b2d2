package dev.sluice.rest;

import java.util.List;

/**
 * {@code GET /v1/stats/limited-keys}: per rule, the keys denied most in the last one to two
 * minutes, merged across members.
 *
 * @param masked whether key texts are masked ({@code key#...}): the caller sent no admin token
 * @param rules one entry per rule that denied, sorted by rule
 */
public record LimitedKeysBody(boolean masked, List<RuleKeys> rules) {}
