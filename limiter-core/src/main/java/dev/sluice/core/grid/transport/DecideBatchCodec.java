package dev.sluice.core.grid.transport;

import static com.hazelcast.client.impl.protocol.ClientMessage.PARTITION_ID_FIELD_OFFSET;
import static com.hazelcast.client.impl.protocol.ClientMessage.RESPONSE_BACKUP_ACKS_FIELD_OFFSET;
import static com.hazelcast.client.impl.protocol.ClientMessage.TYPE_FIELD_OFFSET;
import static com.hazelcast.client.impl.protocol.ClientMessage.UNFRAGMENTED_MESSAGE;
import static com.hazelcast.client.impl.protocol.codec.builtin.FixedSizeTypesCodec.encodeInt;

import com.hazelcast.client.impl.protocol.ClientMessage;
import com.hazelcast.client.impl.protocol.codec.builtin.DataCodec;
import com.hazelcast.client.impl.protocol.codec.builtin.ListMultiFrameCodec;
import com.hazelcast.client.impl.protocol.codec.builtin.StringCodec;
import com.hazelcast.internal.nio.Bits;
import com.hazelcast.internal.serialization.Data;
import java.util.List;

/**
 * The client message "Sluice.DecideBatch": many keys' requests for one member in one message, and
 * their outcomes in one answer (see {@link DecideBatchMessageTask}).
 *
 * <p>Request frames: the header, the state map's name, then one {@link
 * dev.sluice.core.grid.member.DecideProcessor} carrying every key's command. Response frames: the
 * header, then one serialized {@link dev.sluice.core.decision.KeyOutcome} per key, in the order of
 * the request's keys. The layout follows Hazelcast's own generated codecs (for example {@code
 * MapSubmitToKeyCodec}), so the message travels through the client's invocation service like any
 * other.
 *
 * <p>Message types: Hazelcast's protocol takes the service id from the top byte of the type and
 * uses ids 0 to 36 and 253 to 255; 0xC5 is Sluice's.
 */
final class DecideBatchCodec {
  static final int REQUEST_MESSAGE_TYPE = 0xC50100;
  static final int RESPONSE_MESSAGE_TYPE = 0xC50101;
  private static final int REQUEST_INITIAL_FRAME_SIZE =
      PARTITION_ID_FIELD_OFFSET + Bits.INT_SIZE_IN_BYTES;
  private static final int RESPONSE_INITIAL_FRAME_SIZE =
      RESPONSE_BACKUP_ACKS_FIELD_OFFSET + Bits.BYTE_SIZE_IN_BYTES;

  private DecideBatchCodec() {}

  record Request(String mapName, Data processor) {}

  static ClientMessage encodeRequest(String mapName, Data processor) {
    return encodeRequest(REQUEST_MESSAGE_TYPE, mapName, processor);
  }

  /** With another message type: tests use one no member knows, as an older member would see it. */
  static ClientMessage encodeRequest(int messageType, String mapName, Data processor) {
    ClientMessage message = ClientMessage.createForEncode();
    message.setContainsSerializedDataInRequest(true);
    // Deciding twice would count twice: a lost answer is a failure, never a silent retry.
    message.setRetryable(false);
    message.setOperationName("Sluice.DecideBatch");
    ClientMessage.Frame initial =
        new ClientMessage.Frame(new byte[REQUEST_INITIAL_FRAME_SIZE], UNFRAGMENTED_MESSAGE);
    encodeInt(initial.content, TYPE_FIELD_OFFSET, messageType);
    encodeInt(initial.content, PARTITION_ID_FIELD_OFFSET, -1);
    message.add(initial);
    StringCodec.encode(message, mapName);
    DataCodec.encode(message, processor);
    return message;
  }

  static Request decodeRequest(ClientMessage message) {
    ClientMessage.ForwardFrameIterator frames = message.frameIterator();
    frames.next(); // the header
    String mapName = StringCodec.decode(frames);
    Data processor = DataCodec.decode(frames);
    return new Request(mapName, processor);
  }

  static ClientMessage encodeResponse(List<Data> outcomes) {
    ClientMessage message = ClientMessage.createForEncode();
    ClientMessage.Frame initial =
        new ClientMessage.Frame(new byte[RESPONSE_INITIAL_FRAME_SIZE], UNFRAGMENTED_MESSAGE);
    encodeInt(initial.content, TYPE_FIELD_OFFSET, RESPONSE_MESSAGE_TYPE);
    message.add(initial);
    ListMultiFrameCodec.encode(message, outcomes, DataCodec::encode);
    return message;
  }

  static List<Data> decodeResponse(ClientMessage message) {
    ClientMessage.ForwardFrameIterator frames = message.frameIterator();
    frames.next(); // the header
    return ListMultiFrameCodec.decode(frames, DataCodec::decode);
  }
}
