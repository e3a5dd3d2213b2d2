package dev.sluice.rest;

import dev.sluice.core.BatchMode;
import dev.sluice.core.BatchOutcome;
import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.LimiterUnavailableException;
import dev.sluice.core.Policy;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Receipt;
import dev.sluice.core.ReleaseException;
import dev.sluice.core.Reservation;
import dev.sluice.core.ReservationId;
import dev.sluice.core.Rule;
import dev.sluice.core.StateKey;
import dev.sluice.core.headers.RateLimitHeaders;
import dev.sluice.core.spec.LimitSpec;
import io.javalin.http.Context;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The decision routes: check, batch, release, reserve, commit, peek and reset. A route reads its
 * body into {@link Check}s (which validate themselves) and hands them to the limiter, whose
 * pipeline refuses what the policy cannot admit before anything is counted; the route only finds
 * the policy a check runs under, for the answer's headers, and answers 404 for a rule that does not
 * exist.
 */
final class CheckRoutes {
  private final RateLimiter limiter;
  private final Bodies bodies;
  private final int maxBatchChecks;
  private final AdminAuth auth;

  CheckRoutes(RateLimiter limiter, Bodies bodies, int maxBatchChecks, AdminAuth auth) {
    this.limiter = limiter;
    this.bodies = bodies;
    this.maxBatchChecks = maxBatchChecks;
    this.auth = auth;
  }

  /** {@code POST /v1/check}: 200 allowed, 429 denied. */
  void check(Context ctx) {
    Request request = request(noPermitId(bodies.read(ctx, CheckRequest.class), ""), "");
    Decision decision = limiter.tryAcquire(request.check());
    writeHeaders(ctx, request.label(), request.policy(), decision);
    respond(ctx, decision.allowed() ? 200 : 429, request.body(decision, false));
  }

  /** {@code POST /v1/check/batch}: 200 if every check (or, in mode all, the batch) is allowed. */
  void batch(Context ctx) {
    BatchRequest body = bodies.read(ctx, BatchRequest.class);
    if (body.checks() == null) {
      throw ApiError.invalidField(
          "checks", "is required: an array of 1 to " + maxBatchChecks + " checks");
    }
    int size = body.checks().size();
    if (size < 1 || size > maxBatchChecks) {
      throw ApiError.invalidField(
          "checks", "must hold 1 to " + maxBatchChecks + " checks, was " + size);
    }
    BatchMode mode = body.mode() == null ? BatchMode.EACH : BatchMode.fromWireName(body.mode());
    List<Request> requests = new ArrayList<>(size);
    List<Check> checks = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      CheckRequest element = body.checks().get(i);
      if (element == null) {
        throw ApiError.invalidField("checks[" + i + "]", "must be an object, was null");
      }
      Request one = request(noPermitId(element, "checks[" + i + "]."), "checks[" + i + "].");
      if (mode == BatchMode.ALL && one.check().waits()) {
        throw ApiError.invalidField(
            "checks[" + i + "].maxWaitMs",
            "an all-or-nothing batch does not wait: its give-back undoes admissions made now");
      }
      requests.add(one);
      checks.add(one.check());
    }
    BatchOutcome outcome =
        mode == BatchMode.EACH
            ? BatchOutcome.each(limiter.tryAcquireAll(checks))
            : limiter.tryAcquireAll(checks, mode);

    List<DecisionBody> results = new ArrayList<>(size);
    int headline = 0;
    for (int i = 0; i < size; i++) {
      Decision decision = outcome.decisions().get(i);
      results.add(requests.get(i).body(decision, outcome.released().contains(i)));
      if (moreRestrictive(decision, outcome.decisions().get(headline))) {
        headline = i;
      }
    }
    Request head = requests.get(headline);
    writeHeaders(ctx, head.label(), head.policy(), outcome.decisions().get(headline));
    respond(
        ctx,
        outcome.allowed() ? 200 : 429,
        new BatchBody(
            outcome.allowed(), outcome.deniedBy() < 0 ? null : outcome.deniedBy(), results));
  }

  /**
   * {@code POST /v1/release}: gives back what the caller shows it holds, and answers the key's
   * state after that: with {@code receipt} alone, what the check that answered it took; with {@code
   * permitId}, the permit a concurrency check answered; with a bare {@code cost} on a check's body,
   * that many permits, for the admin token or on a rule with {@code release: open} (else 401).
   * Whether the proof holds is the limiter's to say ({@link ReleaseException}, mapped in {@link
   * SluiceApi}); nothing is freed when it does not.
   */
  void release(Context ctx) {
    CheckRequest body = bodies.read(ctx, CheckRequest.class);
    if (body.maxWaitMs() != null) {
      throw ApiError.invalidField("maxWaitMs", "is not taken here: a release never waits");
    }
    if (body.receipt() != null) {
      releaseReceipt(ctx, body);
      return;
    }
    Long permitId = body.permit();
    if (permitId != null && body.cost() != null) {
      throw ApiError.invalidField("cost", "is not taken with permitId: the permit says how many");
    }
    Request request = request(noTtl(body, ""), "");
    Decision decision;
    if (permitId != null) {
      decision = limiter.releasePermit(request.check().ref(), request.check().key(), permitId);
    } else if (auth.isAdmin(ctx)) {
      decision = limiter.releaseWithoutProof(request.check());
    } else {
      decision = limiter.release(request.check()); // only a rule with release: open takes it
    }
    writeHeaders(ctx, request.label(), request.policy(), decision);
    respond(ctx, 200, request.body(decision, false));
  }

  /** {@code POST /v1/release {"receipt": ...}}: the receipt names its key, rule and cost. */
  private void releaseReceipt(Context ctx, CheckRequest body) {
    if (body.permitId() != null || body.ttlMs() != null) {
      throw ApiError.invalidField(
          body.permitId() != null ? "permitId" : "ttlMs",
          "is not taken with a receipt: the receipt names what it gives back");
    }
    Receipt receipt = body.receiptAlone();
    Request request = new Request(receipt.release(), policyOf(receipt.ref(), ""));
    Decision decision = limiter.release(receipt);
    writeHeaders(ctx, request.label(), request.policy(), decision);
    respond(ctx, 200, request.body(decision, false));
  }

  /**
   * The policy {@code ref} names (a check's, a receipt's, a reservation's), for the headers and the
   * body; null as {@link #lookUp} says.
   */
  private @Nullable Policy policyOf(PolicyRef ref, String at) {
    return ref instanceof PolicyRef.Inline inline
        ? inline.policy()
        : lookUp(((PolicyRef.Named) ref).rule(), at);
  }

  /**
   * {@code POST /v1/reserve}: a check's body whose {@code cost} is an estimate, plus {@code ttlMs};
   * 200 with a {@code reservationId} when the estimate is taken (held until committed, or settled
   * at the estimate once the ttl passes), 429 when it is denied (nothing held).
   */
  void reserve(Context ctx) {
    CheckRequest body = bodies.read(ctx, CheckRequest.class);
    if (body.permitId() != null || body.receipt() != null) {
      throw ApiError.invalidField(
          body.permitId() != null ? "permitId" : "receipt",
          "is taken by POST /v1/release only, to give back what was admitted");
    }
    if (body.maxWaitMs() != null) {
      throw ApiError.invalidField(
          "maxWaitMs", "is not taken here: a reservation does not wait; reserve when it fits");
    }
    Duration ttl = body.ttl();
    Request request = request(body, "");
    Reservation reservation = limiter.reserve(request.check(), ttl);
    Decision decision = reservation.decision();
    writeHeaders(ctx, request.label(), request.policy(), decision);
    respond(
        ctx,
        decision.allowed() ? 200 : 429,
        request.body(decision, false).withReservationId(reservation.id()));
  }

  /**
   * {@code POST /v1/commit}: settles a reservation at its actual {@code cost} and answers the key's
   * state after that; 404, 409 or 410 when it is not open (unknown, committed already, expired).
   */
  void commit(Context ctx) {
    CommitRequest body = bodies.read(ctx, CommitRequest.class);
    if (body.cost() == null) {
      throw ApiError.invalidField("cost", "is required: the actual cost, 0 or more");
    }
    ReservationId id = ReservationId.parse(body.reservationId());
    Request request = new Request(new Check(id.ref(), id.subject(), 0), policyOf(id.ref(), ""));
    Decision decision = limiter.commit(body.reservationId(), body.cost());
    writeHeaders(ctx, request.label(), request.policy(), decision);
    respond(ctx, 200, request.body(decision, false));
  }

  /** {@code GET /v1/limits/{rule}/{key}}: the key's state, consuming nothing. */
  void peek(Context ctx) {
    Rule rule = ruleFromPath(ctx);
    String key = keyFromPath(ctx);
    Decision decision = limiter.peek(rule.name(), key);
    writeHeaders(ctx, rule.name(), rule.policy(), decision);
    respond(ctx, 200, DecisionBody.of(decision, rule.name(), rule.policy()));
  }

  /** {@code DELETE /v1/limits/{rule}/{key}} (admin): the key is back to full capacity. */
  void reset(Context ctx) {
    Rule rule = ruleFromPath(ctx);
    limiter.reset(rule.name(), keyFromPath(ctx));
    ctx.status(204);
  }

  /**
   * {@code POST /v1/limits/peek}: the state of the key a check's body names (a rule or an inline
   * policy), consuming nothing. The one way to read an inline policy's key.
   */
  void peekBody(Context ctx) {
    Request request = keyRequest(bodies.read(ctx, CheckRequest.class));
    Decision decision = limiter.peek(request.check().ref(), request.check().key());
    writeHeaders(ctx, request.label(), request.policy(), decision);
    respond(ctx, 200, request.body(decision, false));
  }

  /** {@code POST /v1/limits/reset} (admin): resets the key a check's body names. */
  void resetBody(Context ctx) {
    Request request = keyRequest(bodies.read(ctx, CheckRequest.class));
    limiter.reset(request.check().ref(), request.check().key());
    ctx.status(204);
  }

  /** A body that names a key, not a cost: peek and reset. */
  private Request keyRequest(CheckRequest body) {
    if (body.cost() != null) {
      throw ApiError.invalidField("cost", "is not taken here: this route names a key, not a cost");
    }
    if (body.maxWaitMs() != null) {
      throw ApiError.invalidField("maxWaitMs", "is not taken here: this route names a key");
    }
    return request(noPermitId(body, ""), "");
  }

  /**
   * Refuses a permit id or a receipt where nothing is released, and a ttl where nothing is
   * reserved.
   */
  private static CheckRequest noPermitId(CheckRequest body, String at) {
    if (body.receipt() != null) {
      throw ApiError.invalidField(
          at + "receipt", "is taken by POST /v1/release only, to give back what a check took");
    }
    if (body.permitId() != null) {
      throw ApiError.invalidField(
          at + "permitId", "is taken by POST /v1/release only, to give a permit back");
    }
    return noTtl(body, at);
  }

  private static CheckRequest noTtl(CheckRequest body, String at) {
    if (body.ttlMs() != null) {
      throw ApiError.invalidField(
          at + "ttlMs", "is taken by POST /v1/reserve only, for how long a reservation is open");
    }
    return body;
  }

  /** Reads one check and finds its policy; errors name the field, with {@code at} before it. */
  private Request request(CheckRequest body, String at) {
    Check check;
    try {
      check = body.toCheck();
    } catch (InvalidPolicyException e) {
      throw ApiError.invalidField(at + e.field(), LimitSpec.problem(e));
    }
    return new Request(check, policyOf(check.ref(), at));
  }

  /**
   * The rule's policy, for the headers and the body; null when the grid cannot tell right now (a
   * client-mode node that never saw the rule while the grid is away): the check still goes to the
   * limiter, whose failure policy answers and says so ({@code decidedBy}), without RateLimit
   * headers since the rule's limit is unknown here.
   */
  private @Nullable Policy lookUp(String rule, String at) {
    Optional<Rule> found;
    try {
      found = limiter.rules().find(rule);
    } catch (LimiterUnavailableException unknownHere) {
      return null;
    }
    return found
        .orElseThrow(() -> new ApiError(404, ApiError.UNKNOWN_RULE, unknownRule(at, rule)))
        .policy();
  }

  private Rule ruleFromPath(Context ctx) {
    String name = Rule.checkName(ctx.pathParam("rule"), "rule");
    return limiter
        .rules()
        .find(name)
        .orElseThrow(() -> new ApiError(404, ApiError.UNKNOWN_RULE, unknownRule("", name)));
  }

  private static String keyFromPath(Context ctx) {
    return StateKey.checkSubject(ctx.pathParam("key"));
  }

  /** The message of a 404 for {@code rule}, named where the request named it ({@code at}). */
  static String unknownRule(String at, String rule) {
    return (at.isEmpty() ? "" : at + "rule: ")
        + "unknown rule '"
        + rule
        + "'; GET /v1/rules lists the rules, or send an inline policy (limit, window)";
  }

  /**
   * A denial beats an allowance; among denials the longer wait, among allowances the fewer left.
   */
  private static boolean moreRestrictive(Decision candidate, Decision current) {
    if (candidate.allowed() != current.allowed()) {
      return !candidate.allowed();
    }
    if (!candidate.allowed()) {
      return candidate.retryAfterNanos() > current.retryAfterNanos();
    }
    return candidate.remaining() < current.remaining();
  }

  /** The rate-limit headers every surface writes ({@link RateLimitHeaders}). */
  private static void writeHeaders(
      Context ctx, String label, @Nullable Policy policy, Decision decision) {
    for (RateLimitHeaders.Header header : RateLimitHeaders.of(label, policy, decision)) {
      ctx.header(header.name(), header.value());
    }
  }

  static void respond(Context ctx, int status, Object body) {
    ctx.status(status).contentType("application/json").result(Json.write(body));
  }

  /** A validated check with the policy it runs under. */
  private record Request(Check check, @Nullable Policy policy) {
    String label() {
      return check.ref().label();
    }

    @Nullable String rule() {
      return check.ref() instanceof PolicyRef.Named named ? named.rule() : null;
    }

    DecisionBody body(Decision decision, boolean released) {
      return DecisionBody.of(decision, rule(), policy, released);
    }
  }
}
