package dev.sluice.node.resp;

import dev.sluice.core.Check;
import dev.sluice.core.Decision;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Limit;
import dev.sluice.core.Policy;
import dev.sluice.core.PolicyRef;
import dev.sluice.core.RateLimiter;
import dev.sluice.core.Receipt;
import dev.sluice.core.Reservation;
import dev.sluice.core.ReservationId;
import dev.sluice.core.Rule;
import dev.sluice.core.StateKey;
import dev.sluice.core.spec.PolicySpec;
import dev.sluice.core.spec.RuleSpec;
import dev.sluice.rest.AdminToken;
import dev.sluice.rest.DecisionBody;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Sluice's own commands, with the REST API's semantics and answers ({@link JsonReplies}: REST's
 * fields as a map). A policy is a rule's name, or {@code ~} and an inline policy in the options the
 * rules file and REST use ({@code LIMIT 10 WINDOW 1m ALGORITHM gcra BURST 5}): {@code ~} can be no
 * rule's name.
 *
 * <pre>
 *   SLUICE.CHECK   rule|~ key [COST n] [MAXWAIT ms] [policy]   POST /v1/check         a decision
 *   SLUICE.PEEK    rule|~ key [policy]                         POST /v1/limits/peek   a decision
 *   SLUICE.RELEASE RECEIPT receipt                             POST /v1/release       a decision
 *   SLUICE.RELEASE rule|~ key PERMIT id [policy]               POST /v1/release       a decision
 *   SLUICE.RELEASE rule|~ key COST n [policy]      (admin*)    POST /v1/release       a decision
 *   SLUICE.RESERVE rule|~ key COST n TTL ms [policy]           POST /v1/reserve       a decision and reservationId
 *   SLUICE.COMMIT  reservationId cost                          POST /v1/commit        a decision
 *   SLUICE.RESET   rule|~ key [policy]             (admin)     POST /v1/limits/reset  OK
 *   SLUICE.RULES   GET [name] | SET name policy | DEL name     /v1/rules              rules; SET, DEL admin
 * </pre>
 *
 * {@code SLUICE.CHECK} is decided with the connection's other checks in a row; the others go to the
 * pipeline in their turn, off the event loop. Giving permits back needs proof that the caller holds
 * them, as on REST (docs/rest-api.md, "Giving permits back"): the receipt its check answered, a
 * permit id or a reservation id, from anyone; a bare count only after {@code AUTH} (*), or on a
 * rule with {@code release: open}.
 */
final class SluiceCommands {
  private static final List<String> POLICY =
      List.of(
          "LIMIT",
          "WINDOW",
          "ALGORITHM",
          "BURST",
          "BUCKETS",
          "PERMITTTL",
          "SHADOW",
          "COUNTDENIED",
          "LEASES",
          "ONDENIED",
          "RELEASE");
  static final String NOPERM = "NOPERM this command needs the admin token: AUTH <token> first";

  private final RateLimiter limiter;
  private final AdminToken token;
  private final Executor blocking;

  /**
   * @param blocking where the pipeline's synchronous calls run (a release, a reservation, a rule
   *     change), never on an event loop
   */
  SluiceCommands(RateLimiter limiter, AdminToken token, Executor blocking) {
    this.limiter = limiter;
    this.token = token;
    this.blocking = blocking;
  }

  /** A key's policy: a rule, or an inline policy. */
  private record Target(PolicyRef ref, @Nullable String rule, @Nullable Policy inlinePolicy) {
    /** The target an id names (a reservation's, a receipt's): it carries its rule or policy. */
    static Target of(PolicyRef ref) {
      return ref instanceof PolicyRef.Inline inline
          ? new Target(ref, null, inline.policy())
          : new Target(ref, ((PolicyRef.Named) ref).rule(), null);
    }
  }

  Step check(RespCommand command, Session session) {
    CommandOptions options = CommandOptions.read(command, 3, with("COST", "MAXWAIT"));
    Target target = target(command, options);
    Long cost = options.integer("COST");
    Long maxWaitMs = options.integer("MAXWAIT");
    Check check =
        new Check(
            target.ref(),
            command.text(2, "key"),
            cost == null ? 1 : cost,
            maxWaitMs == null ? Duration.ZERO : Duration.ofMillis(maxWaitMs));
    CompletableFuture<Optional<Rule>> rule =
        target.rule() == null
            ? CompletableFuture.completedFuture(Optional.empty())
            : limiter.rules().findAsync(target.rule());
    return new Step.Decide(
        check,
        decision ->
            JsonReplies.of(
                DecisionBody.of(
                    decision,
                    target.rule(),
                    target.inlinePolicy() != null
                        ? target.inlinePolicy()
                        : rule.getNow(Optional.empty()).map(Rule::policy).orElse(null))));
  }

  Step peek(RespCommand command, Session session) {
    Target target = target(command, CommandOptions.read(command, 3, POLICY));
    String key = key(command);
    return later(() -> withPolicy(target, limiter.peek(target.ref(), key), null));
  }

  Step release(RespCommand command, Session session) {
    if (command.size() == 3 && command.ascii(1).equalsIgnoreCase("RECEIPT")) {
      return releaseReceipt(command);
    }
    if (command.size() < 5) {
      throw new CommandError(CommandTable.arityError("sluice.release"));
    }
    CommandOptions options = CommandOptions.read(command, 3, with("PERMIT", "COST"));
    Target target = target(command, options);
    String key = key(command);
    Long cost = options.integer("COST");
    Long permit = options.integer("PERMIT");
    if ((cost == null) == (permit == null)) {
      throw new CommandError(
          "ERR SLUICE.RELEASE takes PERMIT <id> (a concurrency permit) or COST <n>, one of them;"
              + " or, alone, RECEIPT <receipt>");
    }
    if (permit != null) {
      return later(
          () -> withPolicy(target, limiter.releasePermit(target.ref(), key, permit), null));
    }
    Check check = new Check(target.ref(), key, cost);
    if (admin(session)) {
      return later(() -> withPolicy(target, limiter.releaseWithoutProof(check), null));
    }
    // Without AUTH only a rule with release: open takes a bare count; any other refuses it
    // (NOPERM, RespErrors) with nothing freed.
    return later(() -> withPolicy(target, limiter.release(check), null));
  }

  /**
   * {@code SLUICE.RELEASE RECEIPT <receipt>}: gives back what the check that answered the receipt
   * took, from anyone who holds it (the receipt names its key, rule and cost), once, within its
   * window; REST's {@code POST /v1/release {"receipt": ...}}.
   */
  private Step releaseReceipt(RespCommand command) {
    Receipt receipt = Receipt.parse(command.text(2, "receipt"));
    Target target = Target.of(receipt.ref());
    return later(() -> withPolicy(target, limiter.release(receipt), null));
  }

  Step reserve(RespCommand command, Session session) {
    CommandOptions options = CommandOptions.read(command, 3, with("COST", "TTL"));
    Target target = target(command, options);
    Long cost = options.integer("COST");
    Long ttlMs = options.integer("TTL");
    if (cost == null || ttlMs == null) {
      throw new CommandError(
          "ERR SLUICE.RESERVE needs COST <estimate> and TTL <ms> (how long it stays open)");
    }
    if (ttlMs < 1 || ttlMs > ReservationId.MAX_TTL.toMillis()) {
      throw new CommandError(
          "ERR TTL must be between 1 and " + ReservationId.MAX_TTL.toMillis() + " ms (1 day)");
    }
    Check check = new Check(target.ref(), key(command), cost);
    Duration ttl = Duration.ofMillis(ttlMs);
    return later(
        () -> {
          Reservation reservation = limiter.reserve(check, ttl);
          return withPolicy(target, reservation.decision(), reservation.id());
        });
  }

  Step commit(RespCommand command, Session session) {
    String id = command.text(1, "reservationId");
    long cost = Arguments.redisInteger(command.bytes(2), Arguments.NOT_AN_INTEGER);
    Target target = Target.of(ReservationId.parse(id).ref());
    return later(() -> withPolicy(target, limiter.commit(id, cost), null));
  }

  Step reset(RespCommand command, Session session) {
    Target target = target(command, CommandOptions.read(command, 3, POLICY));
    String key = key(command);
    requireAdmin(session);
    return later(
        () -> {
          limiter.reset(target.ref(), key);
          return Reply.OK;
        });
  }

  /** {@code SLUICE.RULES GET [name] | SET name policy | DEL name}. */
  Step rules(RespCommand command, Session session) {
    String sub = command.ascii(1).toLowerCase(Locale.ROOT);
    switch (sub) {
      case "get" -> {
        if (command.size() > 3) {
          throw new CommandError(CommandTable.arityError("sluice.rules|get"));
        }
        String name = command.size() == 3 ? ruleName(command, 2) : null;
        return later(
            () -> {
              if (name != null) {
                return JsonReplies.of(RuleSpec.of(limiter.rules().get(name)));
              }
              List<Reply> rules = new ArrayList<>();
              limiter.rules().all().stream()
                  .sorted(Comparator.comparing(Rule::name))
                  .forEach(rule -> rules.add(JsonReplies.of(RuleSpec.of(rule))));
              return Reply.array(rules);
            });
      }
      case "set" -> {
        if (command.size() < 3) {
          throw new CommandError(CommandTable.arityError("sluice.rules|set"));
        }
        String name = ruleName(command, 2);
        CommandOptions options = CommandOptions.read(command, 3, POLICY);
        Rule rule = new Rule(name, policy(options));
        requireAdmin(session);
        return later(
            () -> {
              limiter.rules().put(rule);
              return JsonReplies.of(RuleSpec.of(rule));
            });
      }
      case "del" -> {
        if (command.size() != 3) {
          throw new CommandError(CommandTable.arityError("sluice.rules|del"));
        }
        String name = ruleName(command, 2);
        requireAdmin(session);
        return later(() -> Reply.integer(limiter.rules().remove(name) ? 1 : 0));
      }
      default ->
          throw new CommandError(
              "ERR unknown subcommand '"
                  + command.quoted(1)
                  + "'. Try SLUICE.RULES GET, SET or DEL.");
    }
  }

  // ---------------------------------------------------------------- helpers

  /** The policy the command names: argument 1, a rule's name or {@code ~}. */
  private static Target target(RespCommand command, CommandOptions options) {
    String rule = command.text(1, "rule");
    if (rule.equals("~")) {
      Policy policy = policy(options);
      return new Target(PolicyRef.inline(policy), null, policy);
    }
    for (String option : POLICY) {
      if (options.has(option)) {
        throw new CommandError(
            "ERR give either a rule name or ~ and an inline policy (" + option + " ...), not both");
      }
    }
    return new Target(PolicyRef.rule(ruleName(command, 1)), rule, null);
  }

  /** An inline policy (or a rule's) from the options, validated by the one policy spec. */
  private static Policy policy(CommandOptions options) {
    Long buckets = options.integer("BUCKETS");
    if (buckets != null && (buckets < Integer.MIN_VALUE || buckets > Integer.MAX_VALUE)) {
      throw new CommandError("ERR buckets: must be between 1 and " + Limit.MAX_BUCKETS);
    }
    PolicySpec spec =
        new PolicySpec(
            options.integer("LIMIT"),
            options.text("WINDOW"),
            lower(options.text("ALGORITHM")),
            options.integer("BURST"),
            buckets == null ? null : buckets.intValue(),
            options.text("PERMITTTL"),
            null,
            options.bool("SHADOW"),
            options.bool("COUNTDENIED"),
            lower(options.text("LEASES")),
            lower(options.text("ONDENIED")),
            lower(options.text("RELEASE")));
    if (!spec.hasAnyField()) {
      throw new CommandError("ERR an inline policy needs LIMIT <n> and WINDOW <duration>");
    }
    return spec.toPolicy();
  }

  private static @Nullable String lower(@Nullable String text) {
    return text == null ? null : text.toLowerCase(Locale.ROOT);
  }

  private static String ruleName(RespCommand command, int index) {
    try {
      return Rule.checkName(command.text(index, "rule"));
    } catch (InvalidPolicyException e) {
      throw new CommandError("ERR " + e.getMessage());
    }
  }

  private static String key(RespCommand command) {
    return StateKey.checkSubject(command.text(2, "key"));
  }

  private void requireAdmin(Session session) {
    if (!admin(session)) {
      throw new CommandError(NOPERM);
    }
  }

  /** Whether the connection may do what only an admin may: none is configured, or it sent AUTH. */
  private boolean admin(Session session) {
    return !token.configured() || session.authenticated();
  }

  private static List<String> with(String... own) {
    List<String> all = new ArrayList<>(List.of(own));
    all.addAll(POLICY);
    return all;
  }

  /** The answer to a call on {@code target} that the pipeline answered with {@code decision}. */
  private Reply withPolicy(Target target, Decision decision, @Nullable String reservationId) {
    Policy policy = target.inlinePolicy();
    if (policy == null && target.rule() != null) {
      policy = limiter.rules().find(target.rule()).map(Rule::policy).orElse(null);
    }
    DecisionBody body = DecisionBody.of(decision, target.rule(), policy);
    return JsonReplies.of(reservationId == null ? body : body.withReservationId(reservationId));
  }

  /** Work that runs in its turn, off the event loop. */
  private Step later(Supplier<Reply> work) {
    return new Step.Later(() -> CompletableFuture.supplyAsync(work, blocking));
  }
}
