package io.tributary.broker.it;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;

import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * A plain socket to the broker that sends whatever a test wants, well-formed Kafka requests or not, and reads
 * responses or notices the broker closing the connection. Every read is bounded by {@link #TIMEOUT}.
 */
final class RawConnection implements AutoCloseable {

    static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;

    RawConnection(int port) throws IOException {
        socket = new Socket();
        socket.setSoTimeout((int) TIMEOUT.toMillis());
        socket.connect(new InetSocketAddress("127.0.0.1", port), (int) TIMEOUT.toMillis());
        in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        out = new DataOutputStream(socket.getOutputStream());
    }

    /** Sends {@code request} at its version behind a size prefix; returns the header it was sent with. */
    RequestHeader send(AbstractRequest request, int correlationId) throws IOException {
        RequestHeader header = new RequestHeader(request.apiKey(), request.version(), "raw-client", correlationId);
        ByteBuffer payload = request.serializeWithHeader(header);
        sendFrame(payload);
        return header;
    }

    void sendFrame(ByteBuffer payload) throws IOException {
        // One write for size prefix and payload: two small writes on a socket with Nagle's algorithm wait for the
        // broker's delayed ACK of the first, tens of milliseconds per request.
        byte[] frame = new byte[4 + payload.remaining()];
        ByteBuffer.wrap(frame).putInt(payload.remaining()).put(payload.duplicate());
        out.write(frame);
        out.flush();
    }

    void sendBytes(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Reads the response to a request sent with {@code header}; the codec checks the correlation id. */
    AbstractResponse receive(RequestHeader header) throws IOException {
        int size = in.readInt();
        byte[] frame = new byte[size];
        in.readFully(frame);
        return AbstractResponse.parseResponse(ByteBuffer.wrap(frame), header);
    }

    /** The client side's port; the broker's connection id names it ({@code broker:port-127.0.0.1:<this>-n}). */
    int localPort() {
        return socket.getLocalPort();
    }

    /**
     * The next response frame, unparsed, or null if the broker closed the connection before sending another.
     *
     * @throws SocketTimeoutException if neither happens within {@code timeout}
     * @throws EOFException           if the connection closed in the middle of a frame
     */
    byte[] nextFrame(Duration timeout) throws IOException {
        socket.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis())));
        try {
            int first;
            try {
                first = in.read();
            } catch (SocketException e) {
                return null; // connection reset: closed by the broker with our bytes unread
            }
            if (first == -1) {
                return null;
            }
            int size = (first << 24) | (in.readUnsignedByte() << 16) | (in.readUnsignedShort());
            if (size < 0 || size > 64 * 1024 * 1024) {
                throw new IOException("a response frame of " + size + " bytes");
            }
            byte[] frame = new byte[size];
            in.readFully(frame);
            return frame;
        } finally {
            socket.setSoTimeout((int) TIMEOUT.toMillis());
        }
    }

    /** Waits until the broker closes the connection; fails if it sends anything or keeps it open. */
    void awaitClosedByBroker(String why) throws IOException {
        try {
            int read = in.read();
            if (read != -1) {
                fail(why + ": expected the broker to close the connection, but it sent data");
            }
        } catch (SocketTimeoutException e) {
            fail(why + ": the broker kept the connection open for " + TIMEOUT);
        } catch (SocketException e) {
            // Connection reset: closed as well (the broker closed with our bytes still unread).
        } catch (EOFException e) {
            // closed
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
