package dev.sluice.core.grid.member;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.ExtendedMapEntry;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyOutcome;
import dev.sluice.core.decision.StoredState;
import dev.sluice.core.grid.wire.SluiceSerializationIds;
import dev.sluice.core.grid.wire.StateValue;
import dev.sluice.core.grid.wire.WireFormat;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Decides {@link KeyCommand}s on the member that owns each key: ONE invocation per decision, the
 * first use of a key included (an absent entry is a fresh state, never a get-then-put). The step
 * itself is the pipeline's ({@link Decider}, {@link dev.sluice.core.decision.KeyDecision}); this
 * class only decodes, calls, stores, and hands the new state to the backup.
 *
 * <h2>One key or many</h2>
 *
 * The processor carries one command per key: one for {@code executeOnKey}/{@code submitToKey}, or
 * many for {@code submitToKeys} (one operation per owning member that Hazelcast splits into one
 * step per partition). Sluice's own batches (the grid transport) split one processor for many keys
 * into one per key on the member ({@link #forKey}), each its own single-key invocation. Each key's
 * operations are decided in order in that key's one atomic step.
 *
 * <h2>Backups</h2>
 *
 * The backup never re-runs the algorithm: it would read another member's clock. {@link
 * #getBackupProcessor()} hands the states just computed to a {@link StoreStatesBackup} that stores
 * them. Hazelcast asks for the backup processor on the partition thread right after it ran this
 * processor on that partition's keys, so the backup takes the keys of the partition this thread
 * last decided (recorded per thread); with several keys, one processor instance serves several
 * partition threads at once, and each thread only touches its own partition's keys.
 *
 * <h2>Format</h2>
 *
 * {@code [format 1][n][n × (partition id, command)]} ({@link WireFormat#writeCommand}).
 */
public final class DecideProcessor
    implements EntryProcessor<String, StateValue, KeyOutcome>,
        IdentifiedDataSerializable,
        HazelcastInstanceAware {

  private static final int FORMAT = 1;
  private static final ThreadLocal<int[]> LAST_PARTITION =
      ThreadLocal.withInitial(() -> new int[1]);

  private KeyCommand[] commands;
  private int[] partitionIds;
  private @Nullable Map<String, Integer> byKey;
  private transient @Nullable StoredState[] written;
  private transient long[] ttlMillis;
  private transient @Nullable MemberContext context;

  /** For deserialization. */
  public DecideProcessor() {
    this(new KeyCommand[0], new int[0]);
  }

  /** One key's command. */
  public DecideProcessor(KeyCommand command) {
    this(new KeyCommand[] {command}, new int[] {-1});
  }

  /**
   * One command per key, with each key's partition id (for the backups of a multi-key invocation;
   * -1 where it is sent alone).
   */
  public DecideProcessor(KeyCommand[] commands, int[] partitionIds) {
    if (commands.length != partitionIds.length) {
      throw new IllegalArgumentException("one partition id per command");
    }
    this.commands = commands;
    this.partitionIds = partitionIds;
    this.written = new StoredState[commands.length];
    this.ttlMillis = new long[commands.length];
    this.byKey = index(commands);
  }

  private static @Nullable Map<String, Integer> index(KeyCommand[] commands) {
    if (commands.length <= 4) {
      return null;
    }
    Map<String, Integer> map = new HashMap<>(commands.length * 2);
    for (int i = 0; i < commands.length; i++) {
      map.put(commands[i].stateKey(), i);
    }
    return map;
  }

  /** The number of keys carried. */
  public int size() {
    return commands.length;
  }

  /** The state key of command {@code index}. */
  public String key(int index) {
    return commands[index].stateKey();
  }

  /** The commands carried, in order. */
  public KeyCommand[] commands() {
    return commands;
  }

  /** A processor for command {@code index} alone: how a batch becomes one invocation per key. */
  public DecideProcessor forKey(int index) {
    return new DecideProcessor(new KeyCommand[] {commands[index]}, new int[] {partitionIds[index]});
  }

  @Override
  public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
    this.context = MemberContext.of(hazelcastInstance);
  }

  @Override
  public KeyOutcome process(Map.Entry<String, StateValue> entry) {
    int index = indexOf(entry.getKey());
    if (index < 0) {
      return KeyOutcome.invalid(0, "key", "key: no command for " + entry.getKey());
    }
    LAST_PARTITION.get()[0] = partitionIds[index];
    Decider.Result result = Decider.decide(context, commands[index], entry.getValue());
    written[index] = result.written();
    ttlMillis[index] = result.ttlMillis();
    if (result.written() != null) {
      store(entry, StateValue.of(result.written()), result.ttlMillis());
    }
    return result.outcome();
  }

  /** Stores {@code value} with {@code ttlMillis}, or with no TTL for {@link StateTtl#NONE}. */
  static void store(Map.Entry<String, StateValue> entry, StateValue value, long ttlMillis) {
    if (ttlMillis == StateTtl.NONE) {
      entry.setValue(value);
    } else {
      ((ExtendedMapEntry<String, StateValue>) entry)
          .setValue(value, ttlMillis, TimeUnit.MILLISECONDS);
    }
  }

  private int indexOf(String key) {
    if (byKey != null) {
      Integer index = byKey.get(key);
      return index == null ? -1 : index;
    }
    for (int i = 0; i < commands.length; i++) {
      if (commands[i].stateKey().equals(key)) {
        return i;
      }
    }
    return -1;
  }

  @Override
  public @Nullable EntryProcessor<String, StateValue, KeyOutcome> getBackupProcessor() {
    List<Integer> changed = new ArrayList<>(commands.length == 1 ? 1 : 8);
    if (commands.length == 1) {
      if (written[0] != null) {
        changed.add(0);
      }
    } else {
      int partition = LAST_PARTITION.get()[0];
      for (int i = 0; i < commands.length; i++) {
        if (partitionIds[i] == partition && written[i] != null) {
          changed.add(i);
        }
      }
    }
    if (changed.isEmpty()) {
      return null;
    }
    String[] keys = new String[changed.size()];
    StoredState[] states = new StoredState[changed.size()];
    long[] ttls = new long[changed.size()];
    for (int j = 0; j < keys.length; j++) {
      int i = changed.get(j);
      keys[j] = commands[i].stateKey();
      states[j] = written[i];
      ttls[j] = ttlMillis[i];
    }
    return new StoreStatesBackup<>(keys, states, ttls);
  }

  @Override
  public int getFactoryId() {
    return SluiceSerializationIds.FACTORY_ID;
  }

  @Override
  public int getClassId() {
    return SluiceSerializationIds.DECIDE;
  }

  @Override
  public void writeData(ObjectDataOutput out) throws IOException {
    out.writeByte(FORMAT);
    WireFormat.writeVarInt(out, commands.length);
    for (int i = 0; i < commands.length; i++) {
      WireFormat.writeVarInt(out, partitionIds[i]);
      WireFormat.writeCommand(out, commands[i]);
    }
  }

  @Override
  public void readData(ObjectDataInput in) throws IOException {
    int format = in.readByte();
    if (format != FORMAT) {
      throw new IOException("unknown decide processor format " + format);
    }
    int count = WireFormat.readVarInt(in);
    if (count < 0 || count > WireFormat.MAX_OPS_PER_KEY) {
      throw new IOException("implausible key count " + count);
    }
    commands = new KeyCommand[count];
    partitionIds = new int[count];
    for (int i = 0; i < count; i++) {
      partitionIds[i] = WireFormat.readVarInt(in);
      commands[i] = WireFormat.readCommand(in);
    }
    written = new StoredState[count];
    ttlMillis = new long[count];
    byKey = index(commands);
  }
}
