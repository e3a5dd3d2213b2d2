package dev.sluice.core.stats;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A {@link NodeSnapshot} as bytes, for a member's answer to the grid's stats task: plain {@link
 * DataOutputStream} fields after a format byte, so that the format is versioned in one place and a
 * member of the next release can still answer this one (readers refuse a format they do not know,
 * and the console lists that member as silent).
 *
 * <pre>
 * format 1: node, untilSecond, seconds,
 *           rules: n × (rule, allowed, denied, shadowDenied, timed, meanMicros, each [seconds]),
 *           latency: decisions, meanMicros, p99Micros, maxMicros (each [seconds]),
 *           leases: 6 longs, frontEnds: n × (name, n × listensOn, connections, n × (command,
 *           requests, errors)), limitedKeys: n × (rule, unlistedAtMost, total, n × (key, count,
 *           error)), untrackedDenials, member?: (address, uuid, answered, keysOwned,
 *           partitionsOwned, safe, migrationsCompleted, migrationsFailed, n × client)
 * </pre>
 */
public final class SnapshotCodec {
  static final int FORMAT = 1;

  private SnapshotCodec() {}

  public static byte[] encode(NodeSnapshot snapshot) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(1024);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(FORMAT);
      out.writeUTF(snapshot.node());
      out.writeLong(snapshot.untilSecond());
      out.writeInt(snapshot.seconds());
      out.writeInt(snapshot.rates().size());
      for (RuleRates rule : snapshot.rates()) {
        out.writeUTF(rule.rule());
        ints(out, rule.allowed());
        ints(out, rule.denied());
        ints(out, rule.shadowDenied());
        ints(out, rule.timed());
        ints(out, rule.meanMicros());
      }
      LatencySeries latency = snapshot.latency();
      ints(out, latency.decisions());
      ints(out, latency.meanMicros());
      ints(out, latency.p99Micros());
      ints(out, latency.maxMicros());
      LeaseTotals leases = snapshot.leases();
      for (long value :
          new long[] {
            leases.granted(),
            leases.permitsLeased(),
            leases.answeredLocally(),
            leases.returned(),
            leases.expiredUnused(),
            leases.deniedLocally()
          }) {
        out.writeLong(value);
      }
      out.writeInt(snapshot.frontEnds().size());
      for (FrontEndTotals frontEnd : snapshot.frontEnds()) {
        out.writeUTF(frontEnd.name());
        out.writeInt(frontEnd.listensOn().size());
        for (String address : frontEnd.listensOn()) {
          out.writeUTF(address);
        }
        out.writeLong(frontEnd.connections());
        out.writeInt(frontEnd.commands().size());
        for (CommandTotals command : frontEnd.commands()) {
          out.writeUTF(command.command());
          out.writeLong(command.requests());
          out.writeLong(command.errors());
        }
      }
      out.writeInt(snapshot.limitedKeys().size());
      for (Map.Entry<String, KeySummary> rule : snapshot.limitedKeys().entrySet()) {
        out.writeUTF(rule.getKey());
        KeySummary summary = rule.getValue();
        out.writeLong(summary.unlistedAtMost());
        out.writeLong(summary.total());
        out.writeInt(summary.keys().size());
        for (KeyCount key : summary.keys()) {
          out.writeUTF(key.key());
          out.writeLong(key.count());
          out.writeLong(key.error());
        }
      }
      out.writeLong(snapshot.untrackedDenials());
      MemberFacts member = snapshot.member();
      out.writeBoolean(member != null);
      if (member != null) {
        out.writeUTF(member.address());
        out.writeUTF(member.uuid());
        out.writeBoolean(member.answered());
        out.writeLong(member.keysOwned());
        out.writeInt(member.partitionsOwned());
        out.writeBoolean(member.safe());
        out.writeLong(member.migrationsCompleted());
        out.writeLong(member.migrationsFailed());
        out.writeInt(member.clients().size());
        for (ConnectedClient client : member.clients()) {
          out.writeUTF(client.uuid());
          out.writeUTF(client.name());
          out.writeUTF(client.type());
          out.writeUTF(client.address());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
    return bytes.toByteArray();
  }

  /**
   * @throws IllegalArgumentException for bytes of a format this build does not read, or cut short
   */
  public static NodeSnapshot decode(byte[] bytes) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      int format = in.readUnsignedByte();
      if (format != FORMAT) {
        throw new IllegalArgumentException("unknown stats snapshot format " + format);
      }
      String node = in.readUTF();
      long untilSecond = in.readLong();
      int seconds = in.readInt();
      List<RuleRates> rates = new ArrayList<>();
      for (int i = in.readInt(); i > 0; i--) {
        rates.add(
            new RuleRates(
                in.readUTF(),
                ints(in, seconds),
                ints(in, seconds),
                ints(in, seconds),
                ints(in, seconds),
                ints(in, seconds)));
      }
      LatencySeries latency =
          new LatencySeries(
              ints(in, seconds), ints(in, seconds), ints(in, seconds), ints(in, seconds));
      LeaseTotals leases =
          new LeaseTotals(
              in.readLong(),
              in.readLong(),
              in.readLong(),
              in.readLong(),
              in.readLong(),
              in.readLong());
      List<FrontEndTotals> frontEnds = new ArrayList<>();
      for (int i = in.readInt(); i > 0; i--) {
        String name = in.readUTF();
        List<String> addresses = new ArrayList<>();
        for (int j = in.readInt(); j > 0; j--) {
          addresses.add(in.readUTF());
        }
        long connections = in.readLong();
        List<CommandTotals> commands = new ArrayList<>();
        for (int j = in.readInt(); j > 0; j--) {
          commands.add(new CommandTotals(in.readUTF(), in.readLong(), in.readLong()));
        }
        frontEnds.add(new FrontEndTotals(name, addresses, connections, commands));
      }
      Map<String, KeySummary> limitedKeys = new LinkedHashMap<>();
      for (int i = in.readInt(); i > 0; i--) {
        String rule = in.readUTF();
        long unlistedAtMost = in.readLong();
        long total = in.readLong();
        List<KeyCount> keys = new ArrayList<>();
        for (int j = in.readInt(); j > 0; j--) {
          keys.add(new KeyCount(in.readUTF(), in.readLong(), in.readLong()));
        }
        limitedKeys.put(rule, new KeySummary(keys, unlistedAtMost, total));
      }
      long untracked = in.readLong();
      MemberFacts member = null;
      if (in.readBoolean()) {
        member = member(in);
      }
      return new NodeSnapshot(
          node,
          untilSecond,
          seconds,
          rates,
          latency,
          leases,
          frontEnds,
          limitedKeys,
          untracked,
          member);
    } catch (IOException e) {
      throw new IllegalArgumentException("a stats snapshot cut short: " + e, e);
    }
  }

  private static @Nullable MemberFacts member(DataInputStream in) throws IOException {
    String address = in.readUTF();
    String uuid = in.readUTF();
    boolean answered = in.readBoolean();
    long keysOwned = in.readLong();
    int partitionsOwned = in.readInt();
    boolean safe = in.readBoolean();
    long completed = in.readLong();
    long failed = in.readLong();
    List<ConnectedClient> clients = new ArrayList<>();
    for (int j = in.readInt(); j > 0; j--) {
      clients.add(new ConnectedClient(in.readUTF(), in.readUTF(), in.readUTF(), in.readUTF()));
    }
    return new MemberFacts(
        address, uuid, answered, keysOwned, partitionsOwned, safe, completed, failed, clients);
  }

  private static void ints(DataOutputStream out, int[] values) throws IOException {
    for (int value : values) {
      out.writeInt(value);
    }
  }

  private static int[] ints(DataInputStream in, int count) throws IOException {
    int[] values = new int[count];
    for (int i = 0; i < count; i++) {
      values[i] = in.readInt();
    }
    return values;
  }
}
