package dev.sluice.core;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Where a rule is counted: in the cluster that decides it ({@link #LOCAL}, the default), or at a
 * <em>home</em> grid that every region's cluster is connected to ({@link #atHome}): one limit for a
 * key across all regions (docs/multi-region.md).
 *
 * <p>A region answers a global key's requests from budget the home owner admitted to that region in
 * advance, as a lease (docs/algorithms.md, "Leases to the end of the window"), so a global rule is
 * one whose lease can last to the end of its window: one limit of {@code fixed_window}, {@code
 * sliding_window} or {@code sliding_buckets}, leased ({@code leases: auto}), not a shadow rule and
 * not counting denials (a region's denials never reach home). {@link Policy} checks that.
 *
 * @param global counted at the home grid
 * @param onHomeUnreachable what a region answers when it holds no budget for a key and home does
 *     not answer in time
 * @param localShares for {@link OnHomeUnreachable#LOCAL_SHARE}: each region's fixed share of the
 *     limit, by region name; they sum to at most 1 so that the limit holds while regions decide
 *     alone
 */
public record Scope(
    boolean global, OnHomeUnreachable onHomeUnreachable, Map<String, Double> localShares) {

  /** Counted where it is decided. */
  public static final Scope LOCAL = new Scope(false, OnHomeUnreachable.FAIL_CLOSED, Map.of());

  private static final Pattern REGION = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

  /** What a region answers for a global key it holds no budget for while home cannot answer. */
  public enum OnHomeUnreachable {
    /** Deny: only budget already held answers (the default). */
    FAIL_CLOSED,
    /** Allow every such request: availability over the limit. */
    FAIL_OPEN,
    /** Decide in the region alone, on the region's fixed share of the limit. */
    LOCAL_SHARE;

    /** Its code on the wire: never renumber one. */
    public int ordinalCode() {
      return switch (this) {
        case FAIL_CLOSED -> 0;
        case FAIL_OPEN -> 1;
        case LOCAL_SHARE -> 2;
      };
    }

    /** The value with this wire code. */
    public static OnHomeUnreachable ofCode(int code) {
      return WireEnums.ofCode(values(), OnHomeUnreachable::ordinalCode, code, "onHomeUnreachable");
    }

    /**
     * The name in rules files and JSON: {@code fail_closed}, {@code fail_open}, {@code
     * local_share}.
     */
    public String wireName() {
      return WireEnums.wireName(this);
    }

    /**
     * The value with this wire name.
     *
     * @throws InvalidPolicyException naming the field {@code onHomeUnreachable}
     */
    public static OnHomeUnreachable fromWireName(String name) {
      return WireEnums.fromWireName(values(), name, "onHomeUnreachable");
    }
  }

  public Scope {
    if (onHomeUnreachable == null) {
      throw new InvalidPolicyException("onHomeUnreachable", "is required");
    }
    if (localShares == null) {
      throw new InvalidPolicyException("localShares", "is required (empty for none)");
    }
    if (!global && (onHomeUnreachable != OnHomeUnreachable.FAIL_CLOSED || !localShares.isEmpty())) {
      throw new InvalidPolicyException(
          "scope",
          "onHomeUnreachable and localShares are a global rule's settings; set scope: global");
    }
    if (onHomeUnreachable == OnHomeUnreachable.LOCAL_SHARE && localShares.isEmpty()) {
      throw new InvalidPolicyException(
          "localShares",
          "local_share needs each region's share of the limit, e.g. {eu-west: 0.5, us-east: 0.5}");
    }
    if (onHomeUnreachable != OnHomeUnreachable.LOCAL_SHARE && !localShares.isEmpty()) {
      throw new InvalidPolicyException(
          "localShares", "are read only with onHomeUnreachable: local_share");
    }
    double sum = 0;
    for (Map.Entry<String, Double> share : localShares.entrySet()) {
      String region = share.getKey();
      Double value = share.getValue();
      if (region == null || !REGION.matcher(region).matches()) {
        throw new InvalidPolicyException(
            "localShares",
            "region names are 1 to 64 characters of A-Z, a-z, 0-9, '_', '.' and '-', was '"
                + region
                + "'");
      }
      if (value == null || !(value > 0 && value <= 1)) {
        throw new InvalidPolicyException(
            "localShares." + region, "must be a fraction above 0 and at most 1, was " + value);
      }
      sum += value;
    }
    // A little slack for decimal fractions such as 0.7 + 0.2 + 0.1.
    if (sum > 1 + 1e-9) {
      throw new InvalidPolicyException(
          "localShares",
          "must sum to at most 1, so that the limit holds while every region decides alone; they"
              + " sum to "
              + sum);
    }
    localShares = Map.copyOf(new LinkedHashMap<>(localShares));
  }

  /** A global scope with this failure policy and these shares (empty unless local_share). */
  public static Scope atHome(OnHomeUnreachable onHomeUnreachable, Map<String, Double> localShares) {
    return new Scope(true, onHomeUnreachable, localShares);
  }

  /** A global scope that only answers from budget held while home is unreachable. */
  public static Scope atHome() {
    return atHome(OnHomeUnreachable.FAIL_CLOSED, Map.of());
  }

  /** {@code local} or {@code global}, as rules files write it. */
  public String wireName() {
    return global ? "global" : "local";
  }

  /**
   * The limit {@code region} decides on alone under {@link OnHomeUnreachable#LOCAL_SHARE}: its
   * share of {@code limit}, rounded down (so the shares' limits sum to at most {@code limit}); 0
   * for a region without a share.
   */
  public long localLimit(String region, long limit) {
    Double share = localShares.get(region);
    return share == null ? 0 : (long) Math.floor(share * limit);
  }

  /**
   * The scope named {@code scope} ({@code local}, {@code global}; null: local).
   *
   * @throws InvalidPolicyException naming the field at fault
   */
  public static Scope of(
      @Nullable String scope,
      @Nullable String onHomeUnreachable,
      @Nullable Map<String, Double> localShares) {
    boolean global;
    if (scope == null || scope.equals("local")) {
      global = false;
    } else if (scope.equals("global")) {
      global = true;
    } else {
      throw new InvalidPolicyException("scope", "must be 'local' or 'global', was '" + scope + "'");
    }
    return new Scope(
        global,
        onHomeUnreachable == null
            ? OnHomeUnreachable.FAIL_CLOSED
            : OnHomeUnreachable.fromWireName(onHomeUnreachable),
        localShares == null ? Map.of() : localShares);
  }
}
