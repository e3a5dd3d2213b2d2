package dev.sluice.node.resp;

import dev.sluice.node.resp.CommandSpec.Argument;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Every command of the port, as a table: name, arity, flags, key positions, group, summary,
 * arguments, and the method that runs it. {@code COMMAND} answers from it, so what a client learns
 * of a command (a cluster client: where its key is) is what runs.
 */
final class CommandTable {
  private static final String SINCE = "0.1.0";

  private final Map<String, CommandSpec> byName = new LinkedHashMap<>();

  CommandTable(
      ThrottleCommand throttle,
      GcraCommand gcra,
      SluiceCommands sluice,
      ConnectionCommands connection,
      ServerCommands server,
      ClusterCommands cluster) {
    // Rate limiting, redis-cell's and Redis's.
    add(
        "cl.throttle",
        -5,
        List.of("write", "denyoom", "fast"),
        1,
        "rate_limit",
        "Takes quantity tokens from a key's GCRA limit; answers as redis-cell 0.5 does",
        List.of(
            key(),
            integer("max_burst"),
            integer("count_per_period"),
            integer("period"),
            new Argument("quantity", "integer", null, true)),
        throttle::handle);
    add(
        "gcra",
        -5,
        List.of("write", "denyoom", "fast"),
        1,
        "rate_limit",
        "Rate limits a key with GCRA; as Redis's unstable branch has it",
        List.of(
            key(),
            integer("max-burst"),
            integer("tokens-per-period"),
            new Argument("period", "double", null, false),
            new Argument("count", "integer", "TOKENS", true)),
        gcra::handle);

    // Sluice's own, with REST's semantics.
    List<Argument> policy =
        List.of(
            new Argument("limit", "integer", "LIMIT", true),
            new Argument("window", "string", "WINDOW", true),
            new Argument("algorithm", "string", "ALGORITHM", true),
            new Argument("burst", "integer", "BURST", true),
            new Argument("buckets", "integer", "BUCKETS", true),
            new Argument("permitttl", "string", "PERMITTTL", true),
            new Argument("shadow", "string", "SHADOW", true),
            new Argument("countdenied", "string", "COUNTDENIED", true),
            new Argument("leases", "string", "LEASES", true),
            new Argument("ondenied", "string", "ONDENIED", true),
            new Argument("release", "string", "RELEASE", true));
    add(
        "sluice.check",
        -3,
        List.of("write", "fast"),
        2,
        "rate_limit",
        "Takes permits from a key under a rule or (~) an inline policy; answers REST's fields",
        concat(
            List.of(
                rule(),
                key(),
                new Argument("cost", "integer", "COST", true),
                new Argument("maxwait", "integer", "MAXWAIT", true)),
            policy),
        sluice::check);
    add(
        "sluice.peek",
        -3,
        List.of("readonly", "fast"),
        2,
        "rate_limit",
        "A key's state, consuming nothing",
        concat(List.of(rule(), key()), policy),
        sluice::peek);
    add(
        "sluice.release",
        -3,
        List.of("write"),
        2,
        "rate_limit",
        "Gives back what a check took (RECEIPT r, alone), a concurrency permit (PERMIT id), or"
            + " permits (COST n: admin, or a rule with release: open)",
        concat(
            List.of(
                new Argument("receipt", "string", "RECEIPT", true),
                new Argument("rule", "string", null, true),
                new Argument("key", "key", null, true),
                new Argument("permit", "integer", "PERMIT", true),
                new Argument("cost", "integer", "COST", true)),
            policy),
        sluice::release);
    add(
        "sluice.reserve",
        -7,
        List.of("write"),
        2,
        "rate_limit",
        "Takes an estimate, held open until committed or until its ttl",
        concat(
            List.of(
                rule(),
                key(),
                new Argument("cost", "integer", "COST", false),
                new Argument("ttl", "integer", "TTL", false)),
            policy),
        sluice::reserve);
    add(
        "sluice.commit",
        3,
        List.of("write"),
        0,
        "rate_limit",
        "Settles a reservation at its actual cost",
        List.of(new Argument("reservationid", "string", null, false), integer("cost")),
        sluice::commit);
    add(
        "sluice.reset",
        -3,
        List.of("write", "admin"),
        2,
        "rate_limit",
        "Forgets a key's state (admin)",
        concat(List.of(rule(), key()), policy),
        sluice::reset);
    add(
        "sluice.rules",
        -2,
        List.of("admin"),
        0,
        "rate_limit",
        "Reads, defines or deletes named rules (SET and DEL: admin)",
        List.of(new Argument("subcommand", "string", null, false)),
        sluice::rules,
        sub("sluice.rules|get", -2, List.of("readonly"), "Every rule, or one", List.of()),
        sub("sluice.rules|set", -5, List.of("admin"), "Defines a rule (admin)", policy),
        sub("sluice.rules|del", 3, List.of("admin"), "Deletes a rule (admin)", List.of()));

    // Connections.
    add(
        "ping",
        -1,
        List.of("fast", "stale"),
        0,
        "connection",
        "PONG",
        List.of(new Argument("message", "string", null, true)),
        connection::ping);
    add(
        "echo",
        2,
        List.of("fast"),
        0,
        "connection",
        "Answers the message",
        List.of(new Argument("message", "string", null, false)),
        connection::echo);
    add(
        "hello",
        -1,
        List.of("noscript", "loading", "stale", "fast", "no_auth"),
        0,
        "connection",
        "Chooses RESP2 or RESP3, optionally shows the admin token and names the connection",
        List.of(
            new Argument("protover", "integer", null, true),
            new Argument("password", "block", "AUTH", true),
            new Argument("clientname", "string", "SETNAME", true)),
        connection::hello);
    add(
        "auth",
        -2,
        List.of("noscript", "loading", "stale", "fast", "no_auth"),
        0,
        "connection",
        "Shows the admin token: AUTH token, or AUTH default token",
        List.of(
            new Argument("username", "string", null, true),
            new Argument("password", "string", null, false)),
        connection::auth);
    add(
        "client",
        -2,
        List.of(),
        0,
        "connection",
        "The connection's name, id, library and description",
        List.of(new Argument("subcommand", "string", null, false)),
        connection::client,
        sub("client|setname", 3, List.of("fast"), "Names the connection", List.of()),
        sub("client|getname", 2, List.of("fast"), "The connection's name", List.of()),
        sub(
            "client|setinfo",
            4,
            List.of("fast"),
            "The client library's name or version",
            List.of()),
        sub("client|id", 2, List.of("fast"), "The connection's id", List.of()),
        sub("client|info", 2, List.of("fast"), "The connection, described", List.of()));
    add(
        "select",
        2,
        List.of("loading", "stale", "fast"),
        0,
        "connection",
        "Database 0, the only one",
        List.of(integer("index")),
        connection::select);
    add(
        "quit",
        -1,
        List.of("noscript", "loading", "stale", "fast", "no_auth"),
        0,
        "connection",
        "Closes the connection",
        List.of(),
        connection::quit);
    add(
        "reset",
        1,
        List.of("noscript", "loading", "stale", "fast", "no_auth"),
        0,
        "connection",
        "RESP2, not authenticated, no name",
        List.of(),
        connection::reset);

    // The server and the cluster.
    add(
        "command",
        -1,
        List.of("loading", "stale"),
        0,
        "server",
        "Every command, with key positions and documentation",
        List.of(new Argument("subcommand", "string", null, true)),
        server::command,
        sub("command|count", 2, List.of("loading", "stale"), "How many commands", List.of()),
        sub("command|info", -2, List.of("loading", "stale"), "Commands' details", List.of()),
        sub("command|docs", -2, List.of("loading", "stale"), "Commands' documentation", List.of()),
        sub("command|list", -2, List.of("loading", "stale"), "Commands' names", List.of()));
    add(
        "info",
        -1,
        List.of("loading", "stale"),
        0,
        "server",
        "server, clients, stats, replication and cluster facts",
        List.of(new Argument("section", "string", null, true)),
        server::info);
    add(
        "config",
        -2,
        List.of("admin", "loading", "stale"),
        0,
        "server",
        "CONFIG GET answers nothing: a node is configured by its SLUICE_* settings",
        List.of(new Argument("subcommand", "string", null, false)),
        connection::config);
    add(
        "cluster",
        -2,
        List.of(),
        0,
        "cluster",
        "The nodes and the 16,384 slots, for cluster-mode clients",
        List.of(new Argument("subcommand", "string", null, false)),
        cluster::handle,
        sub(
            "cluster|slots",
            2,
            List.of("loading", "stale"),
            "Slot ranges and their nodes",
            List.of()),
        sub("cluster|shards", 2, List.of("loading", "stale"), "Shards and their nodes", List.of()),
        sub("cluster|nodes", 2, List.of("loading", "stale"), "The nodes, Redis's text", List.of()),
        sub("cluster|info", 2, List.of("loading", "stale"), "The cluster's state", List.of()),
        sub("cluster|myid", 2, List.of("loading", "stale"), "This node's id", List.of()),
        sub("cluster|keyslot", 3, List.of("loading", "stale"), "A key's slot", List.of()));
  }

  /** The command named {@code name}, in any case; null if there is none. */
  @Nullable CommandSpec find(String name) {
    return byName.get(name.toLowerCase(Locale.ROOT));
  }

  List<CommandSpec> all() {
    return List.copyOf(byName.values());
  }

  /**
   * What {@code command} turns into: its handler's step after the arity check, Redis's error for an
   * unknown command or a wrong number of arguments.
   *
   * @throws CommandError for arguments the command refuses
   */
  Step run(@Nullable CommandSpec spec, RespCommand command, Session session) {
    if (spec == null) {
      throw new CommandError(unknownCommand(command));
    }
    if (!spec.arityAllows(command.size())) {
      throw new CommandError(arityError(spec.name()));
    }
    return spec.handler().handle(command, session);
  }

  /** Redis's error for a wrong number of arguments. */
  static String arityError(String name) {
    return "ERR wrong number of arguments for '" + name + "' command";
  }

  /** Redis's error for an unknown command, quoting the first arguments. */
  static String unknownCommand(RespCommand command) {
    StringBuilder args = new StringBuilder();
    for (int i = 1; i < command.size() && args.length() < 128; i++) {
      args.append('\'').append(command.quoted(i)).append("' ");
    }
    return "ERR unknown command '" + command.quoted(0) + "', with args beginning with: " + args;
  }

  private void add(
      String name,
      int arity,
      List<String> flags,
      int firstKey,
      String group,
      String summary,
      List<Argument> arguments,
      CommandSpec.Handler handler,
      CommandSpec... subcommands) {
    byName.put(
        name,
        new CommandSpec(
            name,
            arity,
            flags,
            firstKey,
            firstKey,
            firstKey == 0 ? 0 : 1,
            group,
            summary,
            SINCE,
            arguments,
            List.of(subcommands),
            handler));
  }

  private static CommandSpec sub(
      String name, int arity, List<String> flags, String summary, List<Argument> arguments) {
    String group = name.startsWith("sluice") ? "rate_limit" : name.substring(0, name.indexOf('|'));
    return new CommandSpec(
        name,
        arity,
        flags,
        0,
        0,
        0,
        group.equals("client") ? "connection" : group.equals("command") ? "server" : group,
        summary,
        SINCE,
        arguments,
        List.of(),
        null);
  }

  private static Argument key() {
    return new Argument("key", "key", null, false);
  }

  private static Argument rule() {
    return new Argument("rule", "string", null, false);
  }

  private static Argument integer(String name) {
    return new Argument(name, "integer", null, false);
  }

  private static List<Argument> concat(List<Argument> first, List<Argument> rest) {
    List<Argument> all = new ArrayList<>(first);
    all.addAll(rest);
    return all;
  }
}
