package dev.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.Algorithm;
import dev.sluice.core.Decision;
import dev.sluice.core.Decision.DecidedBy;
import dev.sluice.core.Policy;
import dev.sluice.core.Receipt;
import dev.sluice.core.ReleaseException;
import dev.sluice.core.Reservation;
import dev.sluice.core.ReservationException;
import dev.sluice.core.Rule;
import dev.sluice.core.grid.Sluice;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The examples of docs/client.md, run: embedded mode and the client, on a real member. */
class ExamplesTest {

  @Test
  void embeddedMode_memberInTheApplicationJvm_decidesLocallyForItsKeys() {
    GridMembers settings = new GridMembers();
    com.hazelcast.config.Config config = settings.rawMemberConfig(settings.basePort, true);
    // docs/client.md: embedded
    try (Sluice sluice = Sluice.embedded(config);
        SluiceClient limiter =
            SluiceClient.builder()
                .failurePolicy("login", FailurePolicy.FAIL_CLOSED)
                .callTimeout(Duration.ofSeconds(2)) // 50 ms by default; tests share a busy CPU
                .wrap(sluice.limiter())) {
      limiter.rules().put(new Rule("login", Policy.of(5, Duration.ofMinutes(1))));
      Decision decision = limiter.tryAcquire("login", "203.0.113.7");
      if (!decision.allowed()) {
        // answer 429 with Retry-After: decision.retryAfterSeconds()
      }
      // end
      assertThat(decision.allowed()).isTrue();
      assertThat(decision.remaining()).isEqualTo(4);
    }
  }

  @Test
  void client_withEveryOption_decidesThroughTheGrid() {
    try (GridMembers grid = GridMembers.start(1)) {
      String address = grid.addresses()[0];
      String clusterName = grid.clusterName;
      SimpleMeterRegistry meterRegistry = new SimpleMeterRegistry();
      // The operator's rule, put before the example's client starts (as a rules file is): a
      // client that puts a rule itself drops its denials under it again when the grid's event for
      // its own put arrives, and that event can come after the sixth check.
      try (SluiceClient operator = grid.client().build()) {
        operator.rules().put(new Rule("login", Policy.of(5, Duration.ofMinutes(1))));
      }
      // docs/client.md: client
      try (SluiceClient sluice =
          SluiceClient.builder()
              .addresses(address) // host:port of one or more members
              .clusterName(clusterName)
              .callTimeout(Duration.ofSeconds(2)) // 50 ms by default; then the policy answers
              .probeInterval(Duration.ofSeconds(1)) // one call per interval tests a dead grid
              .failurePolicy(FailurePolicy.FAIL_OPEN) // the default for every rule...
              .failurePolicy("login", FailurePolicy.FAIL_CLOSED) // ...but this one
              .deniedCacheSize(100_000) // keys remembered as denied; 0 turns it off
              .coalescing(true) // concurrent calls on one key leave as one batch
              .meterRegistry(meterRegistry)
              .connectTimeout(Duration.ofSeconds(5)) // build() never waits longer
              .build()) {
        // The grid has the rule "login": 5 a minute (the nodes' rules file, or rules().put).
        for (int i = 0; i < 5; i++) {
          sluice.tryAcquire("login", "203.0.113.7");
        }
        Decision sixth = sluice.tryAcquire("login", "203.0.113.7"); // denied by the grid
        Decision seventh = sluice.tryAcquire("login", "203.0.113.7"); // denied locally
        // end
        assertThat(sixth.allowed()).isFalse();
        assertThat(sixth.decidedBy()).isEqualTo(DecidedBy.LIMITER);
        assertThat(seventh.allowed()).isFalse();
        assertThat(seventh.decidedBy()).isEqualTo(DecidedBy.DENIED_CACHE);
        assertThat(
                meterRegistry
                    .get("sluice.client.local.decisions")
                    .tag("reason", "denied_cache")
                    .counter()
                    .count())
            .isEqualTo(1);
      }
    }
  }

  /**
   * docs/client.md, "Waiting instead of 429" and "Permits in flight": a blocking and a non-blocking
   * acquire that wait, and a concurrency permit released in a finally, through the client on a real
   * member.
   */
  @Test
  void waitsAndPermits_throughTheClientOnARealMember() throws Exception {
    try (GridMembers grid = GridMembers.start(1);
        SluiceClient sluice = clientOf(grid, new SimpleMeterRegistry())) {
      // docs/client.md: waits
      sluice
          .rules()
          .put(
              new Rule(
                  "orders",
                  Policy.builder()
                      .algorithm(Algorithm.TOKEN_BUCKET)
                      .limit(10)
                      .window(Duration.ofSeconds(1)) // one permit per 100 ms, 10 at once
                      .build()));
      for (int i = 0; i < 10; i++) {
        sluice.tryAcquire("orders", "tenant-7"); // the burst: the bucket is empty now
      }
      // Blocking: booked for when a permit is there (one call), then this thread waits for it.
      Decision booked = sluice.acquire("orders", "tenant-7", 1, Duration.ofMillis(500));
      // Non-blocking: the future completes after the delay on a shared timer; no thread waits.
      CompletableFuture<Decision> later =
          sluice
              .acquireAsync("orders", "tenant-7", 1, Duration.ofMillis(500))
              .toCompletableFuture();
      // Too long a wait: denied at once, nothing booked.
      Decision denied = sluice.acquire("orders", "tenant-7", 5, Duration.ofMillis(100));
      // end
      assertThat(booked.allowed()).isTrue();
      assertThat(booked.delayMillis()).isBetween(1L, 100L);
      Decision second = later.get(5, TimeUnit.SECONDS);
      assertThat(second.allowed()).isTrue();
      assertThat(second.delayNanos()).isGreaterThan(0);
      assertThat(denied.allowed()).isFalse();

      // docs/client.md: permits
      sluice
          .rules()
          .put(
              new Rule(
                  "exports",
                  Policy.builder()
                      .algorithm(Algorithm.CONCURRENCY)
                      .limit(2) // two exports in flight per tenant
                      .window(Duration.ofMinutes(5)) // permitTtl: a crashed holder's permit
                      .build())); // comes back after 5 minutes
      Decision slot = sluice.tryAcquire("exports", "tenant-7");
      if (slot.allowed()) {
        try {
          // run the export
        } finally {
          sluice.releasePermit("exports", "tenant-7", slot.permitId());
        }
      }
      // end
      assertThat(slot.allowed()).isTrue();
      assertThat(sluice.peek("exports", "tenant-7").remaining()).isEqualTo(2);

      sluice.rules().put(new Rule("uploads", Policy.of(10, Duration.ofMinutes(1))));
      // docs/client.md: receipts
      Decision upload = sluice.tryAcquire("uploads", "tenant-7", 3);
      // ... the upload was cancelled before it used anything: give the 3 permits back.
      Receipt receipt = upload.receipt(); // or Receipt.parse(text) where it travelled as text
      Decision after = sluice.release(receipt); // once; a second time: ReleaseException SPENT
      // end
      assertThat(after.remaining()).isEqualTo(10);
      assertThatThrownBy(() -> sluice.release(receipt))
          .isInstanceOfSatisfying(
              ReleaseException.class,
              e -> assertThat(e.reason()).isEqualTo(ReleaseException.Reason.SPENT));
      assertThatThrownBy(() -> sluice.release("uploads", "tenant-7", 3))
          .isInstanceOf(ReleaseException.class);
    }
  }

  /**
   * docs/client.md, "Reserve, then commit": an LLM call's tokens held before the call and settled
   * after it, through the client on a real member; the reservation metrics count it.
   */
  @Test
  void reserveThenCommit_throughTheClientOnARealMember() {
    SimpleMeterRegistry meterRegistry = new SimpleMeterRegistry();
    try (GridMembers grid = GridMembers.start(1);
        SluiceClient sluice = clientOf(grid, meterRegistry)) {
      // docs/client.md: reservations
      sluice
          .rules()
          .put(
              new Rule(
                  "llm-tokens",
                  Policy.builder()
                      .algorithm(Algorithm.TOKEN_BUCKET)
                      .limit(100_000) // tokens per minute per team
                      .window(Duration.ofMinutes(1))
                      .build()));
      // Before the call: hold what the answer may cost at most.
      Reservation held = sluice.reserve("llm-tokens", "team-7", 4_000, Duration.ofMinutes(2));
      if (held.allowed()) {
        long used = 1_250; // after the call: what it really cost (the response's token count)
        Decision after = sluice.commit(held.id(), used); // the 2,750 not used come back
      }
      // end
      assertThat(held.allowed()).isTrue();
      assertThat(held.decision().remaining()).isBetween(96_000L, 96_100L);
      assertThat(sluice.peek("llm-tokens", "team-7").remaining()).isBetween(98_750L, 100_000L);
      assertThatThrownBy(() -> sluice.commit(held.id(), 1_250))
          .isInstanceOfSatisfying(
              ReservationException.class,
              e -> assertThat(e.reason()).isEqualTo(ReservationException.Reason.COMMITTED));
      assertThat(reservations(meterRegistry, "reserved")).isEqualTo(1);
      assertThat(reservations(meterRegistry, "committed")).isEqualTo(1);
      assertThat(meterRegistry.find("sluice.reservations.expired").meters())
          .as("counted where states are stored, the members; a client stores none")
          .isEmpty();
    }
  }

  /** A client of {@code grid}'s one member that waits long enough for a loaded machine. */
  private static SluiceClient clientOf(GridMembers grid, SimpleMeterRegistry meterRegistry) {
    return SluiceClient.builder()
        .addresses(grid.addresses()[0])
        .clusterName(grid.clusterName)
        .callTimeout(Duration.ofSeconds(2))
        .connectTimeout(Duration.ofSeconds(5))
        .meterRegistry(meterRegistry)
        .build();
  }

  private static double reservations(SimpleMeterRegistry registry, String event) {
    return registry.get("sluice.reservations").tag("event", event).counter().count();
  }
}
