package io.tributary.broker.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointFileTest {

    /** The shape of the per-log-directory offset checkpoints: one "topic partition offset" line per partition. */
    record PartitionOffset(TopicPartition partition, long offset) {
    }

    private static String format(PartitionOffset entry) {
        return entry.partition().topic() + " " + entry.partition().partition() + " " + entry.offset();
    }

    private static PartitionOffset parse(String line) {
        String[] fields = CheckpointFile.fields(line, 3);
        return new PartitionOffset(new TopicPartition(fields[0], Integer.parseInt(fields[1])), Long.parseLong(fields[2]));
    }

    @TempDir
    Path dir;

    private Path file;
    private CheckpointFile<PartitionOffset> checkpoint;

    @BeforeEach
    void setUp() {
        file = dir.resolve("recovery-point-offset-checkpoint");
        checkpoint = new CheckpointFile<>(file, 0, CheckpointFileTest::format, CheckpointFileTest::parse);
    }

    private static PartitionOffset entry(String topic, int partition, long offset) {
        return new PartitionOffset(new TopicPartition(topic, partition), offset);
    }

    private CorruptCheckpointException readCorrupt(String content) throws IOException {
        Files.writeString(file, content, UTF_8);
        return assertThrows(CorruptCheckpointException.class, checkpoint::read);
    }

    private void assertNamesFileAndLine(CorruptCheckpointException e, int line) {
        assertEquals(file, e.file());
        assertEquals(OptionalInt.of(line), e.lineNumber());
        assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        assertTrue(e.getMessage().contains("line " + line), e.getMessage());
    }

    @Test
    void readReturnsTheWrittenEntriesInOrder() throws IOException {
        List<PartitionOffset> entries = List.of(entry("orders", 0, 1570), entry("orders", 1, 0), entry("a.b-c_d", 7, 42));

        checkpoint.write(entries);

        assertEquals(entries, checkpoint.read());
    }

    @Test
    void fileIsVersionLineThenCountLineThenOneLinePerEntry() throws IOException {
        checkpoint.write(List.of(entry("orders", 0, 1570), entry("jobs", 3, 9)));

        assertEquals("0\n2\norders 0 1570\njobs 3 9\n", Files.readString(file, UTF_8));
    }

    @Test
    void emptyListRoundTrips() throws IOException {
        checkpoint.write(List.of());

        assertEquals("0\n0\n", Files.readString(file, UTF_8));
        assertEquals(List.of(), checkpoint.read());
    }

    @Test
    void missingFileReadsAsEmpty() throws IOException {
        assertEquals(List.of(), checkpoint.read());
    }

    @Test
    void fileInMissingDirectoryReadsAsEmpty() throws IOException {
        CheckpointFile<PartitionOffset> elsewhere = new CheckpointFile<>(dir.resolve("gone").resolve("checkpoint"), 0,
                CheckpointFileTest::format, CheckpointFileTest::parse);

        assertEquals(List.of(), elsewhere.read());
    }

    @Test
    void writeReplacesThePreviousContentsAndLeavesNoTmpFile() throws IOException {
        checkpoint.write(List.of(entry("orders", 0, 1), entry("orders", 1, 2)));
        checkpoint.write(List.of(entry("orders", 0, 5)));

        assertEquals(List.of(entry("orders", 0, 5)), checkpoint.read());
        try (var listing = Files.list(dir)) {
            assertEquals(List.of(file), listing.toList());
        }
    }

    @Test
    void staleTmpFileFromACrashIsIgnoredByReadAndOverwrittenByWrite() throws IOException {
        checkpoint.write(List.of(entry("orders", 0, 1)));
        Path tmp = dir.resolve(file.getFileName() + ".tmp");
        Files.writeString(tmp, "0\n5\nhalf a li", UTF_8);

        assertEquals(List.of(entry("orders", 0, 1)), checkpoint.read());

        checkpoint.write(List.of(entry("orders", 0, 2)));
        assertEquals(List.of(entry("orders", 0, 2)), checkpoint.read());
        assertFalse(Files.exists(tmp));
    }

    @Test
    void failedWriteLeavesThePreviousFileAndNoTmpFile() throws IOException {
        checkpoint.write(List.of(entry("orders", 0, 1)));
        CheckpointFile<PartitionOffset> failing = new CheckpointFile<>(file, 0, e -> {
            throw new IllegalStateException("formatter broke");
        }, CheckpointFileTest::parse);

        assertThrows(IllegalStateException.class, () -> failing.write(List.of(entry("orders", 0, 2))));

        assertEquals(List.of(entry("orders", 0, 1)), checkpoint.read());
        assertFalse(Files.exists(dir.resolve(file.getFileName() + ".tmp")));
    }

    @Test
    void writeIntoMissingDirectoryFailsWithIOException() {
        CheckpointFile<PartitionOffset> elsewhere = new CheckpointFile<>(dir.resolve("gone").resolve("checkpoint"), 0,
                CheckpointFileTest::format, CheckpointFileTest::parse);

        assertThrows(IOException.class, () -> elsewhere.write(List.of(entry("orders", 0, 1))));
    }

    @Test
    void writeRejectsAnEntryThatFormatsToSeveralLines() throws IOException {
        CheckpointFile<String> lines = new CheckpointFile<>(file, 0, s -> s, s -> s);

        assertThrows(IllegalArgumentException.class, () -> lines.write(List.of("one", "two\nthree")));
        assertFalse(Files.exists(file));
    }

    @Test
    void wrongVersionIsCorruptAtLineOne() throws IOException {
        CorruptCheckpointException e = readCorrupt("1\n1\norders 0 5\n");

        assertNamesFileAndLine(e, 1);
        assertTrue(e.getMessage().contains("expected version 0 but found 1"), e.getMessage());
    }

    @Test
    void nonNumericVersionIsCorruptAtLineOne() throws IOException {
        assertNamesFileAndLine(readCorrupt("v0\n0\n"), 1);
    }

    @Test
    void emptyFileIsCorrupt() throws IOException {
        assertNamesFileAndLine(readCorrupt(""), 1);
    }

    @Test
    void nonNumericCountIsCorruptAtLineTwo() throws IOException {
        assertNamesFileAndLine(readCorrupt("0\ntwo\n"), 2);
    }

    @Test
    void negativeCountIsCorruptAtLineTwo() throws IOException {
        assertNamesFileAndLine(readCorrupt("0\n-1\n"), 2);
    }

    @Test
    void fileEndingBeforeTheCountedEntriesIsCorrupt() throws IOException {
        CorruptCheckpointException e = readCorrupt("0\n3\norders 0 5\norders 1 6\n");

        assertNamesFileAndLine(e, 5);
        assertTrue(e.getMessage().contains("entry 3 of 3"), e.getMessage());
    }

    @Test
    void moreEntriesThanCountedIsCorrupt() throws IOException {
        CorruptCheckpointException e = readCorrupt("0\n1\norders 0 5\norders 1 6\n");

        assertNamesFileAndLine(e, 4);
        assertTrue(e.getMessage().contains("expected 1 entries but found more lines"), e.getMessage());
    }

    @Test
    void garbageEntryLineIsCorruptAtThatLine() throws IOException {
        CorruptCheckpointException e = readCorrupt("0\n2\norders 0 5\norders one 6\n");

        assertNamesFileAndLine(e, 4);
        assertTrue(e.getMessage().contains("'orders one 6'"), e.getMessage());
        assertTrue(e.getCause() instanceof NumberFormatException);
    }

    @Test
    void entryWithTheWrongNumberOfFieldsIsCorrupt() throws IOException {
        assertNamesFileAndLine(readCorrupt("0\n1\norders 0\n"), 3);
        assertNamesFileAndLine(readCorrupt("0\n1\norders  0 5\n"), 3);
        assertNamesFileAndLine(readCorrupt("0\n1\norders 0 5 \n"), 3);
    }

    @Test
    void entryCutShortByATornWriteIsCorrupt() throws IOException {
        assertNamesFileAndLine(readCorrupt("0\n2\norders 0 5\norders"), 4);
    }

    @Test
    void bytesThatAreNotUtf8AreCorrupt() throws IOException {
        Files.write(file, new byte[] {'0', '\n', '1', '\n', (byte) 0xC3, (byte) 0x28, '\n'});

        CorruptCheckpointException e = assertThrows(CorruptCheckpointException.class, checkpoint::read);

        assertEquals(file, e.file());
        assertEquals(OptionalInt.empty(), e.lineNumber());
        assertTrue(e.getMessage().contains("not UTF-8"), e.getMessage());
    }

    @Test
    void veryLongGarbageLineIsQuotedOnlyInPart() throws IOException {
        String garbage = "x".repeat(10_000);

        CorruptCheckpointException e = readCorrupt("0\n1\n" + garbage + "\n");

        assertTrue(e.getMessage().length() < 500, e.getMessage());
        assertTrue(e.getMessage().contains("(10000 chars)"), e.getMessage());
    }

    @Test
    void fieldsSplitsOnSingleSpaces() {
        assertArrayEquals(new String[] {"orders", "0", "5"}, CheckpointFile.fields("orders 0 5", 3));
        assertThrows(IllegalArgumentException.class, () -> CheckpointFile.fields("orders 0 5", 2));
        assertThrows(IllegalArgumentException.class, () -> CheckpointFile.fields("orders 0  5", 3));
        assertThrows(IllegalArgumentException.class, () -> CheckpointFile.fields(" 0 5", 3));
    }
}
