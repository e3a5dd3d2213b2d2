package dev.sluice.core.grid.wire;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.StreamSerializer;
import dev.sluice.core.decision.KeyOutcome;
import java.io.IOException;

/**
 * Hazelcast's serializer for {@link KeyOutcome}, what an entry processor answers for one key:
 * {@code [format 1][size][decidedAt][result...]} ({@link WireFormat#writeOutcome}). The outcome is
 * a pipeline type with no Hazelcast in it, so it travels through a stream serializer registered by
 * {@code SluiceHazelcast} rather than implementing a serialization interface itself.
 */
public final class KeyOutcomeSerializer implements StreamSerializer<KeyOutcome> {
  private static final int FORMAT = 1;

  @Override
  public int getTypeId() {
    return SluiceSerializationIds.KEY_OUTCOME_TYPE_ID;
  }

  @Override
  public void write(ObjectDataOutput out, KeyOutcome outcome) throws IOException {
    out.writeByte(FORMAT);
    WireFormat.writeOutcome(out, outcome);
  }

  @Override
  public KeyOutcome read(ObjectDataInput in) throws IOException {
    int format = in.readByte();
    if (format != FORMAT) {
      throw new IOException("unknown key outcome format " + format);
    }
    return WireFormat.readOutcome(in);
  }
}
