package dev.sluice.rest;

import dev.sluice.core.stats.KeyCount;
import java.util.List;

/**
 * One rule's limited keys: each listed key was denied between {@code count - error} and {@code
 * count} times; a key not listed at most {@code unlistedAtMost} times (docs/rest-api.md, "Limited
 * keys").
 *
 * @param rule the rule ({@code ~inline} for inline policies)
 * @param total denials (and shadow denials) summarized, over all keys
 * @param unlistedAtMost the most any unlisted key was denied
 * @param keys the keys, most denied first
 */
public record RuleKeys(String rule, long total, long unlistedAtMost, List<KeyCount> keys) {}
