package dev.sluice.spring;

import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * One HTTP gate of {@code sluice.gates}: the requests it limits (path patterns, methods), the rule
 * (or an inline limit), and how a request's key and cost are read.
 *
 * <pre>
 * - paths: /api/**
 *   methods: POST
 *   rule: api
 *   key: header
 *   key-header: X-Api-Key
 *   cost-expression: "header('X-Batch-Size') ?: 1"
 * </pre>
 *
 * @param paths Path patterns the gate limits (Spring's PathPattern syntax: /login, /api/**).
 * @param methods HTTP methods the gate limits; none: every method.
 * @param rule The rule the gate limits by; or give limit and window for a limit of the gate's own.
 * @param limit An inline limit: permits per window (with window), instead of a rule.
 * @param window An inline limit's window: 250ms, 1s, 1m, 1h, 1d or ISO-8601.
 * @param key Where a request's key comes from: ip (default), header, principal or expression.
 * @param keyHeader The header a key: header gate reads.
 * @param keyExpression A SpEL expression over the request (header('X-Tenant'), path(), method(),
 *     remoteAddress(), principal()?.name) giving the key; null: the request is not limited.
 * @param cost Permits each request costs.
 * @param costExpression A SpEL expression over the request giving its cost, instead of cost.
 * @param waitUpTo Wait up to this long for a permit instead of answering 429 (and a leaky bucket's
 *     delay).
 * @param rejectStatus The status of a denial.
 * @param unavailableStatus The status of the failure policy's denial (the grid is unreachable and
 *     the rule fails closed).
 * @param position Before or after Spring Security's filter chain.
 */
public record GateProperties(
    @DefaultValue List<String> paths,
    @DefaultValue List<String> methods,
    @Nullable String rule,
    @Nullable Long limit,
    @Nullable Duration window,
    @DefaultValue("ip") KeySource key,
    @Nullable String keyHeader,
    @Nullable String keyExpression,
    @DefaultValue("1") long cost,
    @Nullable String costExpression,
    @Nullable Duration waitUpTo,
    @DefaultValue("429") int rejectStatus,
    @DefaultValue("503") int unavailableStatus,
    @DefaultValue("after-security") Position position) {

  /** Where a request's key comes from. */
  public enum KeySource {
    /** The client's address, through sluice.trusted-proxies. */
    IP,
    /** The value of the header key-header. */
    HEADER,
    /** The authenticated principal's name (a gate after Spring Security). */
    PRINCIPAL,
    /** The SpEL expression key-expression over the request. */
    EXPRESSION
  }

  /** Where the gate stands relative to Spring Security's filter chain. */
  public enum Position {
    /**
     * Before it: every request counts, authenticated or not (a login endpoint against
     * brute-forcing); no principal is known yet.
     */
    BEFORE_SECURITY,
    /**
     * After it (default): only requests Spring Security let through count, and the principal is
     * known.
     */
    AFTER_SECURITY
  }
}
