package dev.sluice.rest;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The answer to {@code POST /v1/check/batch}.
 *
 * @param allowed every check was allowed (in mode {@code all}: the batch was)
 * @param deniedBy the index of the first denied check; absent when none was denied
 * @param results one answer per check, in the order of the checks; in mode {@code all} a denied
 *     batch's admitted checks carry {@code "released": true}: their permits were given back
 */
public record BatchBody(
    boolean allowed,
    @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable Integer deniedBy,
    List<DecisionBody> results) {}
