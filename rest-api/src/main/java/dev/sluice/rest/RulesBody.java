package dev.sluice.rest;

import dev.sluice.core.spec.RuleSpec;
import java.util.List;

/** The answer to {@code GET /v1/rules}: every rule, sorted by name. */
public record RulesBody(List<RuleSpec> rules) {}
