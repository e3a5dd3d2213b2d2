package dev.sluice.core.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.LimiterUnavailableException;
import dev.sluice.core.Policy;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.Rule;
import dev.sluice.core.RuleStore;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A client's copies of the rules when no event arrives: an old entry is answered at once and
 * refreshed in the background, a change is reported, and a grid that hangs or fails never holds up
 * a lookup longer than the call timeout; a rule never seen while the grid is away is said to be
 * unknown here.
 */
class RuleCacheTest {
  private final ConcurrentHashMap<String, Rule> map = new ConcurrentHashMap<>();
  private final AtomicBoolean hang = new AtomicBoolean();
  private final CountDownLatch released = new CountDownLatch(1);
  private final AtomicLong clock = new AtomicLong(1_000_000_000L);
  private final List<String> changes = new CopyOnWriteArrayList<>();
  private final List<String> reads = new CopyOnWriteArrayList<>();
  private final AtomicBoolean breakerOpen = new AtomicBoolean();
  // While set, a read takes the rule as it is when asked and answers once this completes.
  private volatile @Nullable CompletableFuture<Void> heldReads;
  private final AtomicLong gridFailures = new AtomicLong();
  private final RuleCache rules = new RuleCache(new MapStore(), clock::get);

  RuleCacheTest() {
    rules.guard(
        new RuleCache.Guard(
            breakerOpen::get, gridFailures::incrementAndGet, LOOKUP_TIMEOUT.toNanos()));
    rules.onChange(changes::add);
  }

  /** The client's call timeout: the longest a lookup of a rule never seen waits for its read. */
  private static final Duration LOOKUP_TIMEOUT = Duration.ofMillis(50);

  @AfterEach
  void stop() {
    released.countDown();
    rules.close();
  }

  @Test
  void find_oldEntryWithoutEvent_answersAtOnceAndRefreshesInTheBackground() throws Exception {
    map.put("login", rule(5));
    assertThat(limit()).isEqualTo(5);
    map.put("login", rule(10)); // no event: the cache does not know

    assertThat(limit()).as("fresh: served from memory").isEqualTo(5);
    clock.addAndGet(RuleCache.MAX_STALENESS_NANOS);
    assertThat(limit()).as("old: still answered at once, refresh sent").isEqualTo(5);
    awaitLimit(10);
    assertThat(changes).containsExactly("login");
  }

  @Test
  void find_gridHangs_oldEntryAnsweredWithoutWaiting() throws Exception {
    map.put("login", rule(5));
    assertThat(limit()).isEqualTo(5);
    hang.set(true);
    clock.addAndGet(RuleCache.MAX_STALENESS_NANOS);
    long start = System.nanoTime();
    for (int i = 0; i < 100; i++) {
      assertThat(limit()).isEqualTo(5);
    }
    // 100 answers from the cache take microseconds; waiting for the hung grid even once would take
    // the lookup timeout. 1 s tells the two apart with slack for a loaded machine.
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
    // The grid answers again: the refresh that was waiting completes, later ones go out.
    map.put("login", rule(7));
    hang.set(false);
    released.countDown();
    awaitLimit(7);
  }

  @Test
  void find_breakerOpen_sendsNoRefresh() throws Exception {
    map.put("login", rule(5));
    map.put("other", rule("other", 1));
    assertThat(limit()).isEqualTo(5);
    assertThat(rules.find("other")).isPresent();
    map.put("login", rule(10));
    map.put("other", rule("other", 2));
    breakerOpen.set(true);
    clock.addAndGet(10 * RuleCache.MAX_STALENESS_NANOS);
    for (int i = 0; i < 10; i++) {
      assertThat(limit()).isEqualTo(5);
    }
    assertThat(rules.isCached("login")).isFalse();

    // A refresh would run on the one refresh thread, in order: one sent after the breaker closes
    // has run once its change is reported, and so has any sent while the breaker was open.
    breakerOpen.set(false);
    assertThat(rules.find("other").orElseThrow().policy().limit()).isEqualTo(1);
    awaitChange("other");
    assertThat(reads).as("reads of the map").containsExactly("login", "other", "other");
    assertThat(changes).containsExactly("other");
  }

  @Test
  void find_neverSeenWhileGridHangs_throwsUnavailableWithinTheLookupTimeout() {
    map.put("login", rule(5));
    hang.set(true);
    long start = System.nanoTime();

    assertThatThrownBy(() -> rules.find("login"))
        .isInstanceOf(LimiterUnavailableException.class)
        .hasMessageContaining("rule 'login' has not been seen by this client")
        .hasMessageContaining("failure policy");

    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as("waited about the lookup timeout, not the grid's")
        // The grid's own call would hang until released; a second of slack over the lookup
        // timeout is for scheduling on a loaded machine.
        .isLessThan(LOOKUP_TIMEOUT.plusSeconds(1));
    assertThat(gridFailures).as("the late read counts as a grid failure").hasValue(1);
  }

  @Test
  void findAsync_neverSeenWhileGridHangs_returnsAtOnce_failsWithinTheLookupTimeout() {
    map.put("login", rule(5));
    hang.set(true);
    long start = System.nanoTime();

    CompletableFuture<Optional<Rule>> answer = rules.findAsync("login");

    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as("the caller (an event loop) does not wait for the read")
        .isLessThan(LOOKUP_TIMEOUT);
    assertThat(answer)
        .failsWithin(LOOKUP_TIMEOUT.plusSeconds(1))
        .withThrowableThat()
        .havingCause()
        .isInstanceOf(LimiterUnavailableException.class);
    assertThat(gridFailures).as("the late read counts as a grid failure").hasValue(1);
  }

  @Test
  void findAsync_cachedOrRead_answersTheRule() throws Exception {
    map.put("login", rule(5));
    assertThat(rules.findAsync("login").get(5, TimeUnit.SECONDS)).contains(rule(5));
    assertThat(rules.findAsync("login")).isCompletedWithValue(Optional.of(rule(5)));
  }

  /**
   * A client fetches a rule it just created while the events of other rules keep arriving: the copy
   * it waited for is kept (a release or a batch right after the fetch resolves the rule here).
   */
  @Test
  void fetch_whileOtherRulesChange_keepsTheCopyItWaitedFor() throws Exception {
    map.put("login", rule(5));
    map.put("search", rule("search", 50));
    CompletableFuture<Void> held = new CompletableFuture<>();
    heldReads = held;
    CompletableFuture<Void> fetched = rules.fetch(Set.of("login"));
    heldReads = null;
    rules.invalidate("search"); // another rule's event, while the read of login is out
    held.complete(null);

    fetched.get(5, TimeUnit.SECONDS);
    assertThat(rules.resolve(PolicyRef.rule("login"))).isNotNull();
    assertThat(rules.resolve(PolicyRef.rule("login")).policy().limit()).isEqualTo(5);
  }

  /**
   * The rule's own change arrives while its read is out: that read may bring the rule as it was, so
   * it is not kept, and whoever waited for it gets the rule as the change left it.
   */
  @Test
  void fetch_whenItsRuleChangesDuringTheRead_answersAndKeepsTheRuleAsChanged() throws Exception {
    map.put("login", rule(5));
    CompletableFuture<Void> held = new CompletableFuture<>();
    heldReads = held;
    CompletableFuture<Optional<Rule>> found = rules.findAsync("login");
    CompletableFuture<Void> fetched = rules.fetch(Set.of("login"));
    heldReads = null;
    map.put("login", rule(10));
    rules.invalidate("login"); // its event: the read under way brings 5
    held.complete(null);

    assertThat(found.get(5, TimeUnit.SECONDS)).contains(rule(10));
    fetched.get(5, TimeUnit.SECONDS);
    assertThat(rules.resolve(PolicyRef.rule("login")).policy().limit()).isEqualTo(10);
    assertThat(limit()).isEqualTo(10);
  }

  @Test
  void find_neverSeenWhileBreakerOpen_throwsAtOnceWithoutReading() {
    map.put("login", rule(5));
    breakerOpen.set(true);

    assertThatThrownBy(() -> rules.find("login")).isInstanceOf(LimiterUnavailableException.class);
    assertThat(reads).isEmpty();
  }

  @Test
  void findAndPut_null_throwNamingTheArgument() {
    assertThatThrownBy(() -> rules.find(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("name");
    assertThatThrownBy(() -> rules.put(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("rule");
  }

  private long limit() {
    return rules.find("login").orElseThrow().policy().limit();
  }

  private void awaitChange(String name) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!changes.contains(name) && System.nanoTime() < deadline) {
      Thread.sleep(5); // waiting for the background refresh, not for limiter time
    }
    assertThat(changes).as("changes reported").contains(name);
  }

  private void awaitLimit(long expected) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (limit() != expected && System.nanoTime() < deadline) {
      clock.addAndGet(RuleCache.MAX_STALENESS_NANOS); // keep the entry old: ask again
      Thread.sleep(5); // waiting for the background refresh, not for limiter time
    }
    assertThat(limit()).isEqualTo(expected);
  }

  private static Rule rule(long limit) {
    return rule("login", limit);
  }

  private static Rule rule(String name, long limit) {
    return new Rule(name, Policy.of(limit, Duration.ofMinutes(1)));
  }

  private static final ExecutorService HANGING_READS =
      Executors.newCachedThreadPool(
          runnable -> {
            Thread thread = new Thread(runnable, "hanging-rule-read");
            thread.setDaemon(true);
            return thread;
          });

  /** A rules map that emits no events, and can hang like an unreachable grid. */
  private final class MapStore implements RuleStore {
    @Override
    public Optional<Rule> find(String name) {
      reads.add(name);
      if (hang.get()) {
        try {
          released.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return Optional.ofNullable(map.get(name));
    }

    /** Like the grid's store: the read runs elsewhere, and hangs there, never on the caller. */
    @Override
    public CompletableFuture<Optional<Rule>> findAsync(String name) {
      CompletableFuture<Void> held = heldReads;
      if (held != null) {
        Optional<Rule> asItWas = find(name);
        return held.thenApply(released -> asItWas);
      }
      if (!hang.get()) {
        return CompletableFuture.completedFuture(find(name));
      }
      return CompletableFuture.supplyAsync(() -> find(name), HANGING_READS);
    }

    @Override
    public Collection<Rule> all() {
      return map.values();
    }

    @Override
    public void put(Rule rule) {
      map.put(rule.name(), rule);
    }

    @Override
    public boolean remove(String name) {
      return map.remove(name) != null;
    }
  }
}
