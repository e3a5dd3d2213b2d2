package dev.sluice.rest;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.sluice.core.spec.RuleSpec;
import org.jspecify.annotations.Nullable;

/**
 * A rule as the console lists it.
 *
 * @param name the rule's name
 * @param definition the rule as {@code GET /v1/rules/{name}} answers it
 * @param origin {@code rules_file}, {@code rules_file_then_api}, {@code api} or {@code
 *     bundled_examples}
 * @param failurePolicy {@code fail-open} or {@code fail-closed} on a client-mode node, null on a
 *     member
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RuleInfo(
    String name, RuleSpec definition, String origin, @Nullable String failurePolicy) {}
