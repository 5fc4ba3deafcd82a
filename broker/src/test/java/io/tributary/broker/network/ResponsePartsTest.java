package io.tributary.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.channel.FileRegion;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ResponseHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResponsePartsTest {

    @TempDir
    Path dir;

    /** What the messages would put on the wire, concatenated. */
    private static ByteBuffer wire(ResponseParts parts) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        WritableByteChannel channel = Channels.newChannel(out);
        for (Object message : parts.messages()) {
            if (message instanceof ByteBuf buffer) {
                buffer.getBytes(buffer.readerIndex(), out, buffer.readableBytes());
            } else {
                FileRegion region = (FileRegion) message;
                while (region.transferred() < region.count()) {
                    region.transferTo(channel, region.transferred());
                }
            }
        }
        return ByteBuffer.wrap(out.toByteArray());
    }

    @Test
    void heapResponseIsItsSizePrefixHeaderAndBody() throws IOException {
        Request request = TestRequests.apiVersions(17);
        ApiVersionsResponse response = new ApiVersionsResponse(new ApiVersionsResponseData()
                .setErrorCode(Errors.NONE.code()));
        ResponseParts parts = ResponseParts.serialize(request, response);

        ByteBuffer wire = wire(parts);
        assertEquals(parts.bytes(), wire.remaining());
        assertEquals(wire.remaining() - 4, wire.getInt());
        assertEquals(17, ResponseHeader.parse(wire, (short) 0).correlationId());
        assertEquals(Errors.NONE.code(), ApiVersionsResponse.parse(new ByteBufferAccessor(wire), (short) 2)
                .data().errorCode());
        parts.release();
    }

    /** A segment of three one-record batches of 200-byte values. */
    private FileRecords segmentWithThreeBatches() throws IOException {
        FileRecords segment = FileRecords.open(dir.resolve("00000000000000000000.log").toFile());
        for (int i = 0; i < 3; i++) {
            segment.append(MemoryRecords.withRecords(i, Compression.NONE, new SimpleRecord(new byte[200])));
        }
        return segment;
    }

    /** All of the segment but its first batch. */
    private static FileRecords afterFirstBatch(FileRecords segment) throws IOException {
        int start = segment.batches().iterator().next().sizeInBytes();
        return segment.slice(start, segment.sizeInBytes() - start);
    }

    private static FetchResponse fetchResponseOver(FileRecords slice) {
        return FetchResponse.of(new FetchResponseData().setResponses(List.of(
                new FetchResponseData.FetchableTopicResponse().setTopicId(Uuid.randomUuid()).setPartitions(
                        List.of(new FetchResponseData.PartitionData().setRecords(slice))))));
    }

    private static Request fetchRequest() {
        return TestRequests.request(new FetchRequest(new FetchRequestData(), ApiKeys.FETCH.latestVersion(false)), 3);
    }

    /** Parses the wire bytes of a fetch response and checks that it carries exactly {@code slice}'s bytes. */
    private static void assertCarries(FileRecords slice, ResponseParts parts) throws IOException {
        short version = ApiKeys.FETCH.latestVersion(false);
        ByteBuffer wire = wire(parts);
        assertEquals(parts.bytes(), wire.remaining());
        wire.getInt();
        ResponseHeader.parse(wire, ApiKeys.FETCH.responseHeaderVersion(version));
        FetchResponse parsed = FetchResponse.parse(new ByteBufferAccessor(wire), version);
        FetchResponseData.PartitionData partition = parsed.data().responses().get(0).partitions().get(0);
        ByteBuffer expected = ByteBuffer.allocate(slice.sizeInBytes());
        slice.readInto(expected, 0);
        assertEquals(expected, ((MemoryRecords) partition.records()).buffer());
    }

    @Test
    void recordsInAFileBecomeOneRegionOverExactlyTheSliceAndReleasingItLeavesTheFileOpen() throws IOException {
        try (FileRecords segment = segmentWithThreeBatches()) {
            FileRecords slice = afterFirstBatch(segment);
            int start = segment.sizeInBytes() - slice.sizeInBytes();

            ResponseParts parts = ResponseParts.serialize(fetchRequest(), fetchResponseOver(slice),
                    slice.sizeInBytes() - 1);
            List<FileRegion> regions = parts.messages().stream()
                    .filter(FileRegion.class::isInstance).map(FileRegion.class::cast).toList();
            assertEquals(1, regions.size());
            assertInstanceOf(SharedFileRegion.class, regions.get(0));
            assertEquals(start, regions.get(0).position());
            assertEquals(slice.sizeInBytes(), regions.get(0).count());
            assertCarries(slice, parts);

            parts.release();
            assertEquals(0, regions.get(0).refCnt());
            assertTrue(segment.channel().isOpen());
        }
    }

    @Test
    void aSmallSliceIsReadIntoOneDirectBufferSoTheResponseIsBuffersOnly() throws IOException {
        try (FileRecords segment = segmentWithThreeBatches()) {
            FileRecords slice = afterFirstBatch(segment);

            ResponseParts parts = ResponseParts.serialize(fetchRequest(), fetchResponseOver(slice),
                    slice.sizeInBytes());
            assertTrue(parts.messages().stream().allMatch(ByteBuf.class::isInstance), parts.messages().toString());
            List<ByteBuf> direct = parts.messages().stream().map(ByteBuf.class::cast)
                    .filter(ByteBuf::isDirect).toList();
            assertEquals(1, direct.size());
            assertEquals(slice.sizeInBytes(), direct.get(0).readableBytes());
            assertCarries(slice, parts);

            parts.release();
            assertEquals(0, direct.get(0).refCnt());
            assertTrue(segment.channel().isOpen());
        }
    }

    @Test
    void aFileShorterThanTheSliceToCopyIsAnErrorAndLeavesNothingBehind() throws IOException {
        try (FileRecords segment = segmentWithThreeBatches()) {
            NettyTransferableChannel channel = new NettyTransferableChannel(64 * 1024);
            int size = segment.sizeInBytes();

            EOFException failed = assertThrows(EOFException.class,
                    () -> channel.transferFrom(segment.channel(), 0, size + 100));
            assertTrue(failed.getMessage().contains("record file ended at " + size), failed.getMessage());
            assertEquals(List.of(), channel.messages());
            assertEquals(0, channel.bytes());
        }
    }

    @Test
    void aResponseToAnotherApiIsRefused() {
        Request request = TestRequests.request(new FetchRequest(new FetchRequestData(), (short) 12), 1);
        ApiVersionsResponse response = new ApiVersionsResponse(new ApiVersionsResponseData());
        IllegalArgumentException refused =
                assertThrows(IllegalArgumentException.class, () -> ResponseParts.serialize(request, response));
        assertTrue(refused.getMessage().contains("API_VERSIONS response to a FETCH v12"), refused.getMessage());
    }
}
