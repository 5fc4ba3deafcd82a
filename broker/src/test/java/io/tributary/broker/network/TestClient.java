package io.tributary.broker.network;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * A blocking Kafka-protocol client over a plain socket, for tests: sends requests (or any bytes) and reads
 * responses, with every read bounded by {@link #TIMEOUT}.
 */
final class TestClient implements Closeable {

    static final Duration TIMEOUT = Duration.ofSeconds(10);
    static final String CLIENT_ID = "test-client";

    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;
    private int nextCorrelationId = 1;

    private TestClient(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        this.out = new DataOutputStream(socket.getOutputStream());
    }

    static TestClient connect(int port) throws IOException {
        return connect(port, -1);
    }

    /** Connects with a given SO_RCVBUF (set before connecting, so it holds), or the OS default for -1. */
    static TestClient connect(int port, int receiveBufferBytes) throws IOException {
        Socket socket = new Socket();
        if (receiveBufferBytes > 0) {
            socket.setReceiveBufferSize(receiveBufferBytes);
        }
        socket.setSoTimeout((int) TIMEOUT.toMillis());
        socket.connect(new InetSocketAddress("127.0.0.1", port), (int) TIMEOUT.toMillis());
        return new TestClient(socket);
    }

    /** Connects from {@code localAddress} (another loopback address, say, to count as another client host). */
    static TestClient connectFrom(InetAddress localAddress, int port) throws IOException {
        Socket socket = new Socket();
        socket.bind(new InetSocketAddress(localAddress, 0));
        socket.setSoTimeout((int) TIMEOUT.toMillis());
        socket.connect(new InetSocketAddress("127.0.0.1", port), (int) TIMEOUT.toMillis());
        return new TestClient(socket);
    }

    /** Sends {@code request} at its version with the next correlation id; returns the header sent. */
    RequestHeader send(AbstractRequest request) throws IOException {
        RequestHeader header = new RequestHeader(request.apiKey(), request.version(), CLIENT_ID, nextCorrelationId++);
        sendFrame(request.serializeWithHeader(header));
        return header;
    }

    /** Sends {@code payload} behind its size prefix. */
    void sendFrame(ByteBuffer payload) throws IOException {
        out.writeInt(payload.remaining());
        out.write(payload.array(), payload.arrayOffset() + payload.position(), payload.remaining());
        out.flush();
    }

    void sendRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Reads one response frame (without its size prefix). */
    ByteBuffer receiveFrame() throws IOException {
        int size = in.readInt();
        byte[] bytes = new byte[size];
        in.readFully(bytes);
        return ByteBuffer.wrap(bytes);
    }

    /** Reads the response to {@code header}; fails on a correlation id that is not the header's. */
    @SuppressWarnings("unchecked")
    <T extends AbstractResponse> T receive(RequestHeader header) throws IOException {
        return (T) AbstractResponse.parseResponse(receiveFrame(), header);
    }

    /** Sends a request and reads its response. */
    <T extends AbstractResponse> T roundTrip(AbstractRequest request) throws IOException {
        return receive(send(request));
    }

    /** Waits until the server closes the connection; fails if it sends anything first or keeps it open. */
    void awaitClosedByServer() throws IOException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                int b = in.read();
                if (b < 0) {
                    return;
                }
                fail("the server sent a byte (" + b + ") instead of closing the connection");
            } catch (SocketTimeoutException e) {
                // keep waiting until the deadline
            } catch (SocketException | EOFException e) {
                return; // reset by the server
            }
        }
        fail("the server did not close the connection within " + TIMEOUT);
    }

    /**
     * Whether the server closes the connection within {@code limit}: the wait with a deadline for tests that pace
     * what they send. Fails if the server sends anything instead.
     */
    boolean closedByServerWithin(Duration limit) throws IOException {
        socket.setSoTimeout((int) Math.max(1, limit.toMillis()));
        try {
            int b = in.read();
            if (b < 0) {
                return true;
            }
            fail("the server sent a byte (" + b + ") instead of closing the connection");
            return false;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (SocketException | EOFException e) {
            return true; // reset by the server
        } finally {
            if (!socket.isClosed()) {
                socket.setSoTimeout((int) TIMEOUT.toMillis());
            }
        }
    }

    /** Bytes received and not yet read. */
    int available() throws IOException {
        return in.available();
    }

    int localPort() {
        return socket.getLocalPort();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    /**
     * A request frame written by hand, for versions and keys the codec refuses to write: header v1 ({@code
     * flexible} false) or v2, then {@code body}.
     */
    static ByteBuffer handWrittenRequest(int apiKey, int version, int correlationId, boolean flexible,
                                         byte[] body) {
        byte[] clientId = CLIENT_ID.getBytes(StandardCharsets.UTF_8);
        ByteBuffer frame = ByteBuffer.allocate(2 + 2 + 4 + 2 + clientId.length + (flexible ? 1 : 0) + body.length);
        frame.putShort((short) apiKey).putShort((short) version).putInt(correlationId);
        frame.putShort((short) clientId.length).put(clientId);
        if (flexible) {
            frame.put((byte) 0); // no tagged fields
        }
        frame.put(body);
        return frame.flip();
    }

    /** An ApiVersions v3+ body: compact strings client software name and version, no tagged fields. */
    static byte[] apiVersionsV3Body() {
        return new byte[] {5, 't', 'e', 's', 't', 4, '1', '.', '0', 0};
    }

    static boolean isFlexible(ApiKeys api, short version) {
        return api.requestHeaderVersion(version) >= 2;
    }
}
