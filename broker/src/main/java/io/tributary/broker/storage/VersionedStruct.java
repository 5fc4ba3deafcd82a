package io.tributary.broker.storage;

import java.nio.ByteBuffer;

import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.SchemaException;
import org.apache.kafka.common.protocol.types.Struct;

/**
 * Keys and values of the internal topics ({@code __consumer_offsets}, {@code __transaction_state}) in Kafka's format:
 * an int16 version followed by the fields of that version's {@link Schema}. Reading checks that the fields fill the
 * buffer exactly, so a record of another layout is reported, never half-read. Stateless; any thread.
 */
public final class VersionedStruct {

    private VersionedStruct() {
    }

    /**
     * Reads the fields of {@code schema} from {@code in} (positioned after the version), which must then be
     * exhausted; {@code what} names the record in the {@link CorruptRecordException} otherwise.
     */
    public static Struct read(Schema schema, ByteBuffer in, String what) {
        int length = in.remaining();
        Struct struct;
        try {
            // Schema.read reports every failure (short buffer, negative or oversized length, bad varint) this way.
            struct = schema.read(in);
        } catch (SchemaException e) {
            throw new CorruptRecordException("Malformed " + what + " (" + length + " bytes after the version): "
                    + e.getMessage(), e);
        }
        if (in.hasRemaining()) {
            throw new CorruptRecordException("Malformed " + what + ": " + in.remaining()
                    + " bytes follow its last field");
        }
        return struct;
    }

    /** The version then {@code struct}'s fields; {@code what} names the record if they do not fit that version. */
    public static byte[] write(short version, Struct struct, Object what) {
        try {
            ByteBuffer buffer = ByteBuffer.allocate(Short.BYTES + struct.sizeOf());
            buffer.putShort(version);
            struct.writeTo(buffer);
            return buffer.array();
        } catch (SchemaException e) {
            // A string over 32,767 bytes of UTF-8 is the only way here; the records rule out nulls in wrong places.
            throw new IllegalArgumentException("Cannot write " + what + " as version " + version + ": "
                    + e.getMessage(), e);
        }
    }
}
