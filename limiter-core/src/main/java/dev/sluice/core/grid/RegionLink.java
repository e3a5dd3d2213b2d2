package dev.sluice.core.grid;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.client.config.ClientConnectionStrategyConfig;
import com.hazelcast.config.ListenerConfig;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.LifecycleListener;
import com.hazelcast.map.IMap;
import dev.sluice.core.Decision;
import dev.sluice.core.Policy;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.Rule;
import dev.sluice.core.algorithm.PacedLease;
import dev.sluice.core.backend.Backend;
import dev.sluice.core.backend.Deadline;
import dev.sluice.core.decision.CompiledPolicy;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyOp;
import dev.sluice.core.decision.KeyOutcome;
import dev.sluice.core.decision.LeaseAsk;
import dev.sluice.core.grid.member.MemberContext;
import dev.sluice.core.grid.member.RegionBudgetProcessor;
import dev.sluice.core.region.RegionBudget;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A region member's connection to the home grid: where the budgets of global rules come from
 * (docs/multi-region.md).
 *
 * <h2>What it does</h2>
 *
 * <ul>
 *   <li>Holds a Hazelcast client of the home cluster, and sends it lease asks: an acquire that asks
 *       for a lease to the end of the window, else (the key has no room for one) a paced one to the
 *       end of the window ({@link LeaseAsk#REGION_BUDGET}), decided by the home owner's {@link
 *       dev.sluice.core.decision.KeyDecision} as any holder's ask is, and the exact undo of a lease
 *       ({@link KeyOp#returnLease}) for budget given back.
 *   <li>Refills budgets ahead of need, off the partition thread and off the request's path: a
 *       decision that leaves a key's budget below its low water mark hands the key to {@link
 *       #refillAhead}, whose threads ask home and deposit the grant.
 *   <li>Remembers home's denials of a key with its budget ({@link #rememberDenial}), so that a hot
 *       key past its limit is denied in the region until home's retry-after, not asked again.
 *   <li>Gives back budgets that went idle (a second without an answer), and grants that landed on a
 *       member that no longer holds the key.
 *   <li>Knows the shape of each global rule at home (read every {@value #SHAPES_PERIOD_MILLIS} ms),
 *       so that a rule changing shape at home voids the grants of the old shape.
 *   <li>Tracks the link: up, or down after a failed or late call for {@link #RETRY_NANOS} (calls
 *       then go straight to the rule's {@code onHomeUnreachable}), its round trip, and what it did
 *       ({@link Statistics}).
 * </ul>
 *
 * Installed on a member by {@link #install}: the member's {@link RegionDecideTask}s find it there.
 */
public final class RegionLink implements AutoCloseable {
  /** The map that holds each key's regional budget, on the key's owner in the region. */
  public static final String BUDGET_MAP = "sluice.region.budget";

  /** Where a member's link is kept: its user context, beside the {@link MemberContext}. */
  private static final String USER_CONTEXT_KEY = RegionLink.class.getName();

  /** The executor that runs {@link RegionDecideTask}s on each key's regional owner. */
  public static final String EXECUTOR = "sluice.region";

  /** Threads of {@link #EXECUTOR} per member: a decision that waits on home holds one. */
  static final int EXECUTOR_THREADS = 32;

  /** After a failed or late call to home, calls go straight to the failure policy this long. */
  static final long RETRY_NANOS = 1_000_000_000L;

  static final long SHAPES_PERIOD_MILLIS = 250;
  static final long SWEEP_PERIOD_MILLIS = 250;

  private static final Pattern REGION = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

  /**
   * How a region reaches home.
   *
   * @param region this region's name (the key of a rule's {@code localShares})
   * @param homeClusterName the home cluster's name
   * @param homeMembers {@code host:port} of home members (or of what forwards to them)
   * @param homeTimeout how long a decision waits for home before the rule's {@code
   *     onHomeUnreachable} answers
   */
  public record Settings(
      String region, String homeClusterName, List<String> homeMembers, Duration homeTimeout) {
    public Settings {
      if (region == null || !REGION.matcher(region).matches()) {
        throw new IllegalArgumentException(
            "region: 1 to 64 characters of A-Z, a-z, 0-9, '_', '.' and '-', was " + region);
      }
      Objects.requireNonNull(homeClusterName, "homeClusterName");
      homeMembers = List.copyOf(homeMembers);
      if (homeMembers.isEmpty()) {
        throw new IllegalArgumentException("homeMembers: at least one home member is needed");
      }
      if (homeTimeout.isNegative() || homeTimeout.isZero()) {
        throw new IllegalArgumentException("homeTimeout: must be positive, was " + homeTimeout);
      }
    }

    /** The Hazelcast client configuration that reaches home. */
    public ClientConfig clientConfig() {
      ClientConfig config = new ClientConfig();
      config.setClusterName(homeClusterName);
      config.getNetworkConfig().setAddresses(new ArrayList<>(homeMembers));
      return config;
    }
  }

  /** The state of the link to home, as {@code sluice_region_link_up} reports it. */
  public enum State {
    UP,
    DOWN
  }

  /** What the link did, since it started. */
  public record Statistics(
      State state,
      long roundTripNanos,
      long heldPermits,
      long answeredFromBudget,
      long answeredFromDenial,
      long deniedUntilUsable,
      long waitedOnHome,
      long deniedWhileWaiting,
      long failOpen,
      long failClosed,
      long localShare,
      long refills,
      long refillFailures,
      long returnedPermits) {}

  private final HazelcastInstance member;
  private final String region;
  private final Duration homeTimeout;
  private final HazelcastInstance homeClient;
  private final GridRateLimiter home;
  private final ConcurrentHashMap<String, Integer> homeShapes = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Long> heldByKey = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Boolean> refilling = new ConcurrentHashMap<>();
  private final ExecutorService refills;
  private final ScheduledExecutorService timers;
  private volatile long downUntilNanos;
  private volatile long roundTripNanos;

  /**
   * Whether the home client holds a connection to home, as its lifecycle events say: a region with
   * no connection does not wait for home at all, and reports the link down without a call having to
   * fail first (a home killed while no check needed it).
   */
  private final AtomicBoolean homeConnected = new AtomicBoolean();

  final LongAdder answeredFromBudget = new LongAdder();
  final LongAdder answeredFromDenial = new LongAdder();
  final LongAdder deniedUntilUsable = new LongAdder();
  final LongAdder waitedOnHome = new LongAdder();
  final LongAdder deniedWhileWaiting = new LongAdder();
  final LongAdder failOpen = new LongAdder();
  final LongAdder failClosed = new LongAdder();
  final LongAdder localShare = new LongAdder();
  private final LongAdder refillsDone = new LongAdder();
  private final LongAdder refillFailures = new LongAdder();
  private final LongAdder returnedPermits = new LongAdder();

  private RegionLink(
      HazelcastInstance member, String region, ClientConfig home, Duration homeTimeout) {
    this.member = member;
    this.region = region;
    this.homeTimeout = homeTimeout;
    ClientConnectionStrategyConfig strategy = home.getConnectionStrategyConfig();
    // The region starts and serves while home is away; calls fail fast until it is back.
    strategy.setAsyncStart(true);
    strategy.setReconnectMode(ClientConnectionStrategyConfig.ReconnectMode.ASYNC);
    strategy.getConnectionRetryConfig().setMaxBackoffMillis(1_000);
    AtomicBoolean connected = homeConnected;
    home.addListenerConfig(
        new ListenerConfig(
            (LifecycleListener)
                event -> {
                  switch (event.getState()) {
                    case CLIENT_CONNECTED -> connected.set(true);
                    case CLIENT_DISCONNECTED, SHUTTING_DOWN, SHUTDOWN -> connected.set(false);
                    default -> {}
                  }
                }));
    this.homeClient = HazelcastClient.newHazelcastClient(SluiceHazelcast.configure(home));
    this.home =
        new GridRateLimiter(
            homeClient, GridRateLimiter.Options.defaults().withLeases(false).withBatching(false));
    AtomicInteger threads = new AtomicInteger();
    this.refills =
        Executors.newFixedThreadPool(
            4, runnable -> daemon(runnable, "sluice-region-refill-" + threads.incrementAndGet()));
    this.timers =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> daemon(runnable, "sluice-region-link"));
    timers.scheduleWithFixedDelay(this::readShapes, 0, SHAPES_PERIOD_MILLIS, TimeUnit.MILLISECONDS);
    timers.scheduleWithFixedDelay(
        this::sweep, SWEEP_PERIOD_MILLIS, SWEEP_PERIOD_MILLIS, TimeUnit.MILLISECONDS);
  }

  private static Thread daemon(Runnable runnable, String name) {
    Thread thread = new Thread(runnable, name);
    thread.setDaemon(true);
    return thread;
  }

  /**
   * Connects {@code member}, a member configured with {@link SluiceHazelcast#configure}, to home:
   * from now on its global rules' keys are decided from regional budgets.
   */
  public static RegionLink install(HazelcastInstance member, Settings settings) {
    return install(member, settings.region(), settings.clientConfig(), settings.homeTimeout());
  }

  /**
   * Connects {@code member} to home through {@code home}, a client configuration of the home
   * cluster (for addresses that need more than a list: discovery, TLS, address translation).
   */
  public static RegionLink install(
      HazelcastInstance member, String region, ClientConfig home, Duration homeTimeout) {
    MemberContext context = MemberContext.of(member);
    if (context == null) {
      throw new IllegalStateException(
          "this member was not configured with SluiceHazelcast.configure");
    }
    RegionLink link = new RegionLink(member, region, home, homeTimeout);
    member.getUserContext().put(USER_CONTEXT_KEY, link);
    context.setRegion(region);
    return link;
  }

  /** The link of {@code member}, or null if it is in no region. */
  public static @Nullable RegionLink of(HazelcastInstance member) {
    return member.getUserContext().get(USER_CONTEXT_KEY) instanceof RegionLink link ? link : null;
  }

  public String region() {
    return region;
  }

  /** The limiter of the home grid, as this link reaches it (for tests and tools). */
  public GridRateLimiter home() {
    return home;
  }

  /**
   * Up once the client of home has connected and its grid objects are made ({@link
   * GridRateLimiter#ready}), and no call failed in the last {@link #RETRY_NANOS}. Until the objects
   * are made a call to home could only fail, and the failure would keep the link down a second
   * after they are: a region that starts beside its home answers by the rules' failure policy for
   * the few milliseconds it takes, not for a second more.
   */
  public State state() {
    return homeConnected.get() && home.ready().isDone() && System.nanoTime() - downUntilNanos >= 0
        ? State.UP
        : State.DOWN;
  }

  public Statistics statistics() {
    long held = 0;
    for (long permits : heldByKey.values()) {
      held += permits;
    }
    return new Statistics(
        state(),
        roundTripNanos,
        held,
        answeredFromBudget.sum(),
        answeredFromDenial.sum(),
        deniedUntilUsable.sum(),
        waitedOnHome.sum(),
        deniedWhileWaiting.sum(),
        failOpen.sum(),
        failClosed.sum(),
        localShare.sum(),
        refillsDone.sum(),
        refillFailures.sum(),
        returnedPermits.sum());
  }

  long roundTripNanos() {
    return roundTripNanos;
  }

  HazelcastInstance member() {
    return member;
  }

  /**
   * The shape of {@code rule} at home as last read; before the first read, the shape of {@code
   * known} (this region's copy), which the next read corrects.
   */
  int homeShape(String rule, Policy known) {
    Integer shape = homeShapes.get(rule);
    if (shape == null) {
      shape = CompiledPolicy.fingerprint(known);
      homeShapes.putIfAbsent(rule, shape);
    }
    return shape;
  }

  void held(String stateKey, long permits) {
    if (permits > 0) {
      heldByKey.put(stateKey, permits);
    } else {
      heldByKey.remove(stateKey);
    }
  }

  /** Whether home should be asked now: the link is up, or its pause after a failure is over. */
  boolean tryHome() {
    return state() == State.UP;
  }

  private void failed() {
    downUntilNanos = System.nanoTime() + RETRY_NANOS;
  }

  /**
   * Asks the home owner of {@code stateKey} for {@code permits} now (0 for a refill) and a lease of
   * up to {@code ask} more, {@code ask} being a second's worth of the region's demand: to the end
   * of the window where the key has room for one, else a paced one to the end of the window of at
   * most half of what frees up before then, waiting at most the home timeout.
   *
   * @return what home answered, with when the ask left and its answer arrived on this member's
   *     clock; empty if home did not answer in time (the link is marked down)
   */
  Optional<HomeAnswer> ask(String rule, String stateKey, long permits, long ask) {
    KeyOp op = KeyOp.acquireWithLease(permits, ask, LeaseAsk.REGION_BUDGET);
    KeyCommand command = new KeyCommand(stateKey, PolicyRef.rule(rule), new KeyOp[] {op});
    long sentAt = System.nanoTime();
    try {
      KeyOutcome outcome = backend().execute(command, Deadline.after(homeTimeout.toNanos()));
      long arrivedAt = System.nanoTime();
      long took = arrivedAt - sentAt;
      long previous = roundTripNanos;
      roundTripNanos = previous == 0 ? took : (previous * 7 + took) / 8;
      return Optional.of(new HomeAnswer(outcome, sentAt, arrivedAt));
    } catch (RuntimeException e) {
      failed(); // late (DeadlineExceededException), or home is away
      return Optional.empty();
    }
  }

  /** Home's answer to an ask, with when the ask left here and when the answer arrived. */
  record HomeAnswer(KeyOutcome outcome, long sentAtNanos, long arrivedAtNanos) {
    /**
     * The lease home granted with the answer, as this member holds it; null if none. It ends here
     * at {@code sent + (end - decided)}, and a paced one's permits become usable here at {@code
     * arrived + (instant - decided)}: never later, nor earlier, than at home (RegionBudget, "Paced
     * grants").
     */
    RegionBudget.@Nullable Grant grant(int shape) {
      long permits = outcome.leased(0);
      if (permits <= 0) {
        return null;
      }
      long decided = outcome.decidedAtNanos();
      long length = outcome.leaseEndsAtNanos(0) - decided;
      PacedLease paced = outcome.pacedLease(0);
      return new RegionBudget.Grant(
          permits,
          sentAtNanos + length,
          decided,
          length,
          shape,
          paced == null ? 0 : arrivedAtNanos + Math.max(0, paced.firstAtNanos() - decided),
          paced == null ? 0 : paced.spacingNanos());
    }
  }

  /** Gives grants back to home: the exact undo of each, stamped with home's own instants. */
  CompletableFuture<?> giveBack(String rule, String stateKey, List<RegionBudget.Grant> grants) {
    if (grants.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    List<KeyOp> ops = new ArrayList<>(grants.size());
    long permits = 0;
    for (RegionBudget.Grant grant : grants) {
      ops.add(KeyOp.returnLease(grant.permits(), grant.grantedAtHomeNanos(), grant.leaseNanos()));
      permits += grant.permits();
    }
    long total = permits;
    KeyCommand command = new KeyCommand(stateKey, PolicyRef.rule(rule), ops.toArray(new KeyOp[0]));
    try {
      return backend()
          .executeAsync(command, Deadline.NONE)
          .whenComplete(
              (outcome, failure) -> {
                if (failure == null) {
                  returnedPermits.add(total);
                }
              });
    } catch (RuntimeException e) {
      // Home is away: the permits stay counted there until their window ends (stricter).
      return CompletableFuture.completedFuture(null);
    }
  }

  /**
   * Asks home for more budget for {@code stateKey}, in the background: at most one refill per key
   * at a time on this member.
   */
  void refillAhead(String rule, String stateKey, long ask, int shape) {
    if (refilling.putIfAbsent(stateKey, Boolean.TRUE) != null) {
      return;
    }
    try {
      refills.execute(
          () -> {
            try {
              refill(rule, stateKey, ask, shape);
            } finally {
              refilling.remove(stateKey);
            }
          });
    } catch (RuntimeException e) {
      refilling.remove(stateKey);
    }
  }

  private void refill(String rule, String stateKey, long ask, int shape) {
    if (!tryHome()) {
      refillFailed(stateKey);
      return;
    }
    Optional<HomeAnswer> answer = ask(rule, stateKey, 0, ask);
    if (answer.isEmpty()) {
      refillFailures.increment();
      refillFailed(stateKey);
      return;
    }
    RegionBudget.Grant grant = answer.get().grant(shape);
    if (grant == null) {
      refillFailed(stateKey);
      return;
    }
    refillsDone.increment();
    deposit(rule, stateKey, grant);
  }

  /** Stores {@code grant} in the key's budget here; gives it back if it cannot be held here. */
  void deposit(String rule, String stateKey, RegionBudget.Grant grant) {
    RegionBudgetProcessor.Result result =
        budgets().executeOnKey(stateKey, RegionBudgetProcessor.deposit(localId(), grant));
    held(stateKey, result.held());
    giveBack(rule, stateKey, result.giveBack());
  }

  /**
   * Remembers home's {@code denial} of {@code permits} on {@code stateKey}, asked at {@code
   * sentAtNanos} on this member's clock, with the key's budget on this member.
   */
  void rememberDenial(String stateKey, long permits, long sentAtNanos, Decision denial) {
    try {
      budgets()
          .executeOnKey(
              stateKey,
              RegionBudgetProcessor.denied(
                  localId(),
                  permits,
                  new RegionBudgetProcessor.Denial(
                      sentAtNanos, denial.retryAfterNanos(), denial.resetAfterNanos())));
    } catch (RuntimeException e) {
      // Not remembered: the next check asks home again.
    }
  }

  private void refillFailed(String stateKey) {
    try {
      budgets().executeOnKey(stateKey, RegionBudgetProcessor.refillFailed());
    } catch (RuntimeException e) {
      // The refill mark times out by itself (RegionBudget.REFILL_TIMEOUT_NANOS).
    }
  }

  IMap<String, long[]> budgets() {
    return member.getMap(BUDGET_MAP);
  }

  UUID localId() {
    return member.getCluster().getLocalMember().getUuid();
  }

  private Backend backend() {
    return home.gridBackend();
  }

  /** Reads the shape of every global rule this region has decided, at home. */
  private void readShapes() {
    if (!tryHome() || homeShapes.isEmpty()) {
      return;
    }
    for (String rule : List.copyOf(homeShapes.keySet())) {
      try {
        Optional<Rule> found = home.rules().find(rule);
        found.ifPresent(r -> homeShapes.put(rule, CompiledPolicy.fingerprint(r.policy())));
      } catch (RuntimeException e) {
        return; // home is away; shapes stay as they were
      }
    }
  }

  /**
   * Gives back the budgets this member holds that went idle, and forgets keys that hold nothing.
   */
  private void sweep() {
    for (Map.Entry<String, Long> entry : List.copyOf(heldByKey.entrySet())) {
      String stateKey = entry.getKey();
      try {
        RegionBudgetProcessor.Result result =
            budgets().executeOnKey(stateKey, RegionBudgetProcessor.sweep(localId()));
        held(stateKey, result.held());
        giveBack(ruleOf(stateKey), stateKey, result.giveBack());
      } catch (RuntimeException e) {
        // The member is shutting down or the partition is moving: the next sweep looks again.
      }
    }
  }

  private static String ruleOf(String stateKey) {
    int bar = stateKey.indexOf('|');
    return bar < 0 ? stateKey : stateKey.substring(0, bar);
  }

  /** Gives every budget held here back to home, then disconnects. */
  @Override
  public void close() {
    timers.shutdownNow();
    refills.shutdownNow();
    List<CompletableFuture<?>> returns = new ArrayList<>();
    for (String stateKey : List.copyOf(heldByKey.keySet())) {
      try {
        RegionBudgetProcessor.Result result =
            budgets().executeOnKey(stateKey, RegionBudgetProcessor.takeAll());
        returns.add(giveBack(ruleOf(stateKey), stateKey, result.giveBack()));
      } catch (RuntimeException e) {
        // Counted at home until their window ends.
      }
    }
    try {
      CompletableFuture.allOf(returns.toArray(new CompletableFuture<?>[0]))
          .get(homeTimeout.toMillis() * 2, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // What did not go back stays counted at home until its window ends: stricter.
    }
    MemberContext context = MemberContext.of(member);
    if (context != null) {
      context.setRegion(null);
    }
    member.getUserContext().remove(USER_CONTEXT_KEY, this);
    home.close();
    homeClient.shutdown();
  }
}
