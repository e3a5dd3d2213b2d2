package dev.sluice.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

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
 */
public class GateProperties {

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

  /** Path patterns the gate limits (Spring's PathPattern syntax: /login, /api/**). */
  private List<String> paths = new ArrayList<>();

  /** HTTP methods the gate limits; none: every method. */
  private List<String> methods = new ArrayList<>();

  /** The rule the gate limits by; or give limit and window for a limit of the gate's own. */
  private @Nullable String rule;

  /** An inline limit: permits per window (with window), instead of a rule. */
  private @Nullable Long limit;

  /** An inline limit's window: 250ms, 1s, 1m, 1h, 1d or ISO-8601. */
  private @Nullable Duration window;

  /** Where a request's key comes from: ip (default), header, principal or expression. */
  private KeySource key = KeySource.IP;

  /** The header a key: header gate reads. */
  private @Nullable String keyHeader;

  /**
   * A SpEL expression over the request (header('X-Tenant'), path(), method(), remoteAddress(),
   * principal()?.name) giving the key; null: the request is not limited.
   */
  private @Nullable String keyExpression;

  /** Permits each request costs. */
  private long cost = 1;

  /** A SpEL expression over the request giving its cost, instead of cost. */
  private @Nullable String costExpression;

  /** Wait up to this long for a permit instead of answering 429 (and a leaky bucket's delay). */
  private @Nullable Duration waitUpTo;

  /** The status of a denial. */
  private int rejectStatus = 429;

  /**
   * The status of the failure policy's denial (the grid is unreachable and the rule fails closed).
   */
  private int unavailableStatus = 503;

  /** Before or after Spring Security's filter chain. */
  private Position position = Position.AFTER_SECURITY;

  public List<String> getPaths() {
    return paths;
  }

  public void setPaths(List<String> paths) {
    this.paths = paths;
  }

  public List<String> getMethods() {
    return methods;
  }

  public void setMethods(List<String> methods) {
    this.methods = methods;
  }

  public @Nullable String getRule() {
    return rule;
  }

  public void setRule(@Nullable String rule) {
    this.rule = rule;
  }

  public @Nullable Long getLimit() {
    return limit;
  }

  public void setLimit(@Nullable Long limit) {
    this.limit = limit;
  }

  public @Nullable Duration getWindow() {
    return window;
  }

  public void setWindow(@Nullable Duration window) {
    this.window = window;
  }

  public KeySource getKey() {
    return key;
  }

  public void setKey(KeySource key) {
    this.key = key;
  }

  public @Nullable String getKeyHeader() {
    return keyHeader;
  }

  public void setKeyHeader(@Nullable String keyHeader) {
    this.keyHeader = keyHeader;
  }

  public @Nullable String getKeyExpression() {
    return keyExpression;
  }

  public void setKeyExpression(@Nullable String keyExpression) {
    this.keyExpression = keyExpression;
  }

  public long getCost() {
    return cost;
  }

  public void setCost(long cost) {
    this.cost = cost;
  }

  public @Nullable String getCostExpression() {
    return costExpression;
  }

  public void setCostExpression(@Nullable String costExpression) {
    this.costExpression = costExpression;
  }

  public @Nullable Duration getWaitUpTo() {
    return waitUpTo;
  }

  public void setWaitUpTo(@Nullable Duration waitUpTo) {
    this.waitUpTo = waitUpTo;
  }

  public int getRejectStatus() {
    return rejectStatus;
  }

  public void setRejectStatus(int rejectStatus) {
    this.rejectStatus = rejectStatus;
  }

  public int getUnavailableStatus() {
    return unavailableStatus;
  }

  public void setUnavailableStatus(int unavailableStatus) {
    this.unavailableStatus = unavailableStatus;
  }

  public Position getPosition() {
    return position;
  }

  public void setPosition(Position position) {
    this.position = position;
  }
}
