package dev.sluice.rest;

import java.util.List;

/** The answer to {@code GET /v1/rules}: every rule, sorted by name. */
public record RulesBody(List<RuleBody> rules) {}
