package dev.sluice.node.resp;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * {@code COMMAND} (and {@code COUNT}, {@code INFO}, {@code DOCS}, {@code LIST}) from the command
 * table, so that clients find each command's key positions (a cluster client routes by them) and
 * {@code redis-cli} its hints; and {@code INFO}, the subset of Redis's sections clients read.
 */
final class ServerCommands {
  /** The Redis version this port answers like, in {@code HELLO} and {@code INFO}. */
  static final String REDIS_VERSION = "7.2.0";

  private static final Set<String> DEFAULT_SECTIONS =
      Set.of("server", "clients", "stats", "replication", "cluster");

  private final Supplier<CommandTable> table;
  private final RespStats stats;
  private final IntSupplier port;

  /**
   * @param table the table, asked for when {@code COMMAND} runs (it lists this class's commands
   *     too)
   */
  ServerCommands(Supplier<CommandTable> table, RespStats stats, IntSupplier port) {
    this.table = table;
    this.stats = stats;
    this.port = port;
  }

  Step command(RespCommand command, Session session) {
    List<CommandSpec> all = table.get().all();
    if (command.size() == 1) {
      return new Step.Now(infos(all));
    }
    String sub = command.ascii(1).toLowerCase(Locale.ROOT);
    switch (sub) {
      case "count" -> {
        return new Step.Now(Reply.integer(all.size()));
      }
      case "list" -> {
        List<Reply> names = new ArrayList<>();
        all.forEach(spec -> names.add(Reply.bulk(spec.name())));
        return new Step.Now(Reply.array(names));
      }
      case "info" -> {
        if (command.size() == 2) {
          return new Step.Now(infos(all));
        }
        List<Reply> infos = new ArrayList<>();
        for (int i = 2; i < command.size(); i++) {
          CommandSpec spec = table.get().find(command.ascii(i));
          infos.add(spec == null ? Reply.NULL : info(spec));
        }
        return new Step.Now(Reply.array(infos));
      }
      case "docs" -> {
        List<Reply> docs = new ArrayList<>();
        List<CommandSpec> asked = new ArrayList<>();
        if (command.size() == 2) {
          asked.addAll(all);
        }
        for (int i = 2; i < command.size(); i++) {
          CommandSpec spec = table.get().find(command.ascii(i));
          if (spec != null) {
            asked.add(spec);
          }
        }
        for (CommandSpec spec : asked) {
          docs.add(Reply.bulk(spec.name()));
          docs.add(docs(spec));
        }
        return new Step.Now(Reply.map(docs));
      }
      default ->
          throw new CommandError(
              "ERR unknown subcommand '"
                  + command.quoted(1)
                  + "'. Try COMMAND COUNT, INFO, DOCS or LIST.");
    }
  }

  private static Reply infos(List<CommandSpec> specs) {
    List<Reply> infos = new ArrayList<>(specs.size());
    specs.forEach(spec -> infos.add(info(spec)));
    return Reply.array(infos);
  }

  /**
   * Redis 7's ten fields: name, arity, flags, first key, last key, key step, ACL categories, tips,
   * key specifications, subcommands.
   */
  private static Reply info(CommandSpec spec) {
    List<Reply> flags = new ArrayList<>();
    spec.flags().forEach(flag -> flags.add(Reply.status(flag)));
    List<Reply> categories = new ArrayList<>();
    categories.add(Reply.status("@" + spec.group()));
    if (spec.flags().contains("write")) {
      categories.add(Reply.status("@write"));
    }
    if (spec.flags().contains("readonly")) {
      categories.add(Reply.status("@read"));
    }
    if (spec.flags().contains("fast")) {
      categories.add(Reply.status("@fast"));
    }
    if (spec.flags().contains("admin")) {
      categories.add(Reply.status("@admin"));
      categories.add(Reply.status("@dangerous"));
    }
    List<Reply> keySpecs = new ArrayList<>();
    if (spec.firstKey() > 0) {
      boolean writes = spec.flags().contains("write");
      keySpecs.add(
          Reply.map(
              "flags",
              Reply.set(
                  List.of(
                      Reply.status(writes ? "RW" : "RO"),
                      Reply.status("ACCESS"),
                      Reply.status(writes ? "UPDATE" : "ACCESS"))),
              "begin_search",
              Reply.map(
                  "type",
                  Reply.bulk("index"),
                  "spec",
                  Reply.map("index", Reply.integer(spec.firstKey()))),
              "find_keys",
              Reply.map(
                  "type",
                  Reply.bulk("range"),
                  "spec",
                  Reply.map(
                      "lastkey", Reply.integer(spec.lastKey() - spec.firstKey()),
                      "keystep", Reply.integer(spec.keyStep()),
                      "limit", Reply.integer(0)))));
    }
    List<Reply> subcommands = new ArrayList<>();
    spec.subcommands().forEach(sub -> subcommands.add(info(sub)));
    return Reply.array(
        Reply.bulk(spec.name()),
        Reply.integer(spec.arity()),
        Reply.set(flags),
        Reply.integer(spec.firstKey()),
        Reply.integer(spec.lastKey()),
        Reply.integer(spec.keyStep()),
        Reply.set(categories),
        Reply.array(List.of()),
        Reply.array(keySpecs),
        Reply.array(subcommands));
  }

  private static Reply docs(CommandSpec spec) {
    List<Reply> arguments = new ArrayList<>();
    for (CommandSpec.Argument argument : spec.arguments()) {
      List<Reply> fields = new ArrayList<>();
      fields.add(Reply.bulk("name"));
      fields.add(Reply.bulk(argument.name()));
      fields.add(Reply.bulk("type"));
      fields.add(Reply.bulk(argument.type()));
      if (argument.token() != null) {
        fields.add(Reply.bulk("token"));
        fields.add(Reply.bulk(argument.token()));
      }
      if (argument.optional()) {
        fields.add(Reply.bulk("flags"));
        fields.add(Reply.set(List.of(Reply.status("optional"))));
      }
      arguments.add(Reply.map(fields));
    }
    List<Reply> fields = new ArrayList<>();
    fields.add(Reply.bulk("summary"));
    fields.add(Reply.bulk(spec.summary()));
    fields.add(Reply.bulk("since"));
    fields.add(Reply.bulk(spec.since()));
    fields.add(Reply.bulk("group"));
    fields.add(Reply.bulk(spec.group()));
    fields.add(Reply.bulk("complexity"));
    fields.add(Reply.bulk("O(1)"));
    fields.add(Reply.bulk("arguments"));
    fields.add(Reply.array(arguments));
    if (!spec.subcommands().isEmpty()) {
      List<Reply> subs = new ArrayList<>();
      for (CommandSpec sub : spec.subcommands()) {
        subs.add(Reply.bulk(sub.name()));
        subs.add(docs(sub));
      }
      fields.add(Reply.bulk("subcommands"));
      fields.add(Reply.map(subs));
    }
    return Reply.map(fields);
  }

  /** {@code INFO [section ...]}: server, clients, stats, replication, cluster. */
  Step info(RespCommand command, Session session) {
    Set<String> asked = new HashSet<>();
    for (int i = 1; i < command.size(); i++) {
      asked.add(command.ascii(i).toLowerCase(Locale.ROOT));
    }
    boolean all =
        asked.isEmpty()
            || asked.contains("all")
            || asked.contains("everything")
            || asked.contains("default");
    StringBuilder text = new StringBuilder();
    for (String section : List.of("server", "clients", "stats", "replication", "cluster")) {
      if (!(all && DEFAULT_SECTIONS.contains(section)) && !asked.contains(section)) {
        continue;
      }
      if (text.length() > 0) {
        text.append("\r\n");
      }
      text.append("# ")
          .append(Character.toUpperCase(section.charAt(0)))
          .append(section.substring(1));
      text.append("\r\n");
      switch (section) {
        case "server" ->
            text.append("redis_version:")
                .append(REDIS_VERSION)
                .append("\r\nsluice_version:")
                .append(version())
                .append("\r\nredis_mode:cluster\r\nos:")
                .append(System.getProperty("os.name"))
                .append("\r\narch_bits:64\r\nprocess_id:")
                .append(ProcessHandle.current().pid())
                .append("\r\ntcp_port:")
                .append(port.getAsInt())
                .append("\r\nuptime_in_seconds:")
                .append(stats.uptimeSeconds())
                .append("\r\nuptime_in_days:")
                .append(stats.uptimeSeconds() / 86_400)
                .append("\r\n");
        case "clients" ->
            text.append("connected_clients:")
                .append(stats.connectedClients())
                .append("\r\nclient_recent_max_output_buffer:")
                .append(stats.maxOutputBufferBytes())
                .append("\r\nclients_not_read_for_output:")
                .append(stats.connectionsNotRead())
                .append("\r\nblocked_clients:0\r\n");
        case "stats" ->
            text.append("total_connections_received:")
                .append(stats.connectionsReceived())
                .append("\r\ntotal_commands_processed:")
                .append(stats.commandsProcessed())
                .append("\r\ntotal_protocol_errors:")
                .append(stats.protocolErrors())
                .append("\r\nrejected_connections:0\r\n");
        case "replication" ->
            text.append("role:master\r\nconnected_slaves:0\r\nmaster_repl_offset:0\r\n");
        case "cluster" -> text.append("cluster_enabled:1\r\n");
        default -> throw new IllegalStateException(section);
      }
    }
    return new Step.Now(new Reply.Verbatim(text.toString()));
  }

  private static String version() {
    String version = ServerCommands.class.getPackage().getImplementationVersion();
    return version == null ? "dev" : version;
  }
}
