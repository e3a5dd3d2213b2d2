package dev.sluice.core.grid.member;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.core.ReadOnly;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.core.decision.KeyCommand;
import dev.sluice.core.decision.KeyOutcome;
import dev.sluice.core.grid.wire.SluiceSerializationIds;
import dev.sluice.core.grid.wire.StateValue;
import dev.sluice.core.grid.wire.WireFormat;
import java.io.IOException;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Reports a key's state as a request for 0 permits would see it, at the owner's {@code now}: a
 * command of peeks, decided by the same step as every other ({@link Decider}). {@link ReadOnly}: it
 * never writes (the step stores nothing for a peek), so Hazelcast skips the write path and there is
 * no backup.
 */
public final class PeekProcessor
    implements EntryProcessor<String, StateValue, KeyOutcome>,
        IdentifiedDataSerializable,
        HazelcastInstanceAware,
        ReadOnly {
  private static final int FORMAT = 1;

  private @Nullable KeyCommand command;
  private transient @Nullable MemberContext context;

  /** For deserialization. */
  public PeekProcessor() {}

  /** A processor for {@code command}, whose operations are all peeks. */
  public PeekProcessor(KeyCommand command) {
    if (!command.readOnly()) {
      throw new IllegalArgumentException("a peek carries only peeks: " + command);
    }
    this.command = command;
  }

  @Override
  public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
    this.context = MemberContext.of(hazelcastInstance);
  }

  @Override
  public KeyOutcome process(Map.Entry<String, StateValue> entry) {
    if (command == null) {
      return KeyOutcome.invalid(0, "key", "key: no command");
    }
    return Decider.decide(context, command, entry.getValue()).outcome();
  }

  @Override
  public @Nullable EntryProcessor<String, StateValue, KeyOutcome> getBackupProcessor() {
    return null;
  }

  @Override
  public int getFactoryId() {
    return SluiceSerializationIds.FACTORY_ID;
  }

  @Override
  public int getClassId() {
    return SluiceSerializationIds.PEEK;
  }

  @Override
  public void writeData(ObjectDataOutput out) throws IOException {
    out.writeByte(FORMAT);
    WireFormat.writeCommand(out, java.util.Objects.requireNonNull(command));
  }

  @Override
  public void readData(ObjectDataInput in) throws IOException {
    int format = in.readByte();
    if (format != FORMAT) {
      throw new IOException("unknown peek format " + format);
    }
    KeyCommand read = WireFormat.readCommand(in);
    if (!read.readOnly()) {
      throw new IOException("a peek carries only peeks");
    }
    command = read;
  }
}
