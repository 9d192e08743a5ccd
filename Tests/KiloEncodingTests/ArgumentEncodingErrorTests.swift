import Foundation
import KiloEncoding
import Testing

@Suite struct ArgumentEncodingErrorTests {
    private static let file = URL(fileURLWithPath: "/tmp/missing.txt")

    @Test func staticMembersWithTheSameKeyAreEqual() {
        #expect(ArgumentEncodingError.emptyKey == .emptyKey)
        #expect(ArgumentEncodingError.fileNotAllowed("a") == .fileNotAllowed("a"))
        #expect(ArgumentEncodingError.nonFiniteNumber("a") == .nonFiniteNumber("a"))
        #expect(ArgumentEncodingError.unsupportedValue("a", type: "T") == .unsupportedValue("a", type: "T"))
        #expect(ArgumentEncodingError.lineBreakInName("a") == .lineBreakInName("a"))
        #expect(
            ArgumentEncodingError.unreadableFile("a", url: Self.file, reason: "r")
                == .unreadableFile("a", url: Self.file, reason: "r")
        )
    }

    @Test func differentKeysAreNotEqual() {
        #expect(ArgumentEncodingError.fileNotAllowed("a") != .fileNotAllowed("b"))
        #expect(ArgumentEncodingError.nonFiniteNumber("a") != .nonFiniteNumber("b"))
        #expect(ArgumentEncodingError.lineBreakInName("a") != .lineBreakInName("b"))
    }

    @Test func differentCausesWithTheSameKeyAreNotEqual() {
        let errors: [ArgumentEncodingError] = [
            .fileNotAllowed("a"), .nonFiniteNumber("a"), .unsupportedValue("a", type: "T"), .lineBreakInName("a"),
            .unreadableFile("a", url: Self.file, reason: "r"), .emptyKey,
        ]
        #expect(Set(errors).count == errors.count)
        #expect(ArgumentEncodingError.unsupportedValue("a", type: "T") != .unsupportedValue("a", type: "U"))
        #expect(
            ArgumentEncodingError.unreadableFile("a", url: Self.file, reason: "r")
                != .unreadableFile("a", url: URL(fileURLWithPath: "/tmp/other.txt"), reason: "r")
        )
    }

    @Test func keyIsTheArgumentsName() {
        #expect(ArgumentEncodingError.emptyKey.key == "")
        #expect(ArgumentEncodingError.fileNotAllowed("doc").key == "doc")
        #expect(ArgumentEncodingError.nonFiniteNumber("ratio").key == "ratio")
        #expect(ArgumentEncodingError.unsupportedValue("filter", type: "T").key == "filter")
        #expect(ArgumentEncodingError.lineBreakInName("x\ny").key == "x\ny")
        #expect(ArgumentEncodingError.unreadableFile("photo", url: Self.file, reason: "r").key == "photo")
    }

    @Test(arguments: [
        ArgumentEncodingError.fileNotAllowed("doc"), .nonFiniteNumber("doc"),
        .unsupportedValue("doc", type: "Dictionary<String, Int>"), .lineBreakInName("doc"),
        .unreadableFile("doc", url: URL(fileURLWithPath: "/tmp/missing.txt"), reason: "No such file"),
    ])
    func descriptionNamesTheKey(error: ArgumentEncodingError) {
        #expect(error.errorDescription?.contains("\"doc\"") == true)
        #expect(error.localizedDescription.contains("\"doc\""))
    }

    /// `print(error)` and string interpolation show the description, not the private storage
    /// (with a memory address in it) that Swift's default reflection would print.
    @Test func printingAnErrorShowsItsCauseKeyAndSentence() {
        #expect(
            String(describing: ArgumentEncodingError.fileNotAllowed("doc"))
                == "ArgumentEncodingError.fileNotAllowed(\"doc\"): The argument \"doc\" is a file; files can only be sent as multipart/form-data."
        )
        #expect(
            "\(ArgumentEncodingError.unsupportedValue("f", type: "Range<Int>"))"
                == "ArgumentEncodingError.unsupportedValue(\"f\", type: \"Range<Int>\"): The argument \"f\" has a value of type Range<Int>, which cannot be sent as an argument."
        )
        #expect(
            String(describing: ArgumentEncodingError.emptyKey)
                == "ArgumentEncodingError.emptyKey: An argument has an empty name."
        )
        #expect(
            String(describing: ArgumentEncodingError.unreadableFile("p", url: Self.file, reason: "No such file."))
                == "ArgumentEncodingError.unreadableFile(\"p\"): The file \"/tmp/missing.txt\" for argument \"p\" cannot be read: No such file."
        )
    }

    @Test func descriptionsSayWhatWentWrong() {
        #expect(ArgumentEncodingError.emptyKey.errorDescription == "An argument has an empty name.")
        #expect(
            ArgumentEncodingError.fileNotAllowed("doc").errorDescription
                == "The argument \"doc\" is a file; files can only be sent as multipart/form-data."
        )
        #expect(
            ArgumentEncodingError.nonFiniteNumber("x").errorDescription
                == "The argument \"x\" is not a finite number."
        )
        #expect(
            ArgumentEncodingError.unsupportedValue("f", type: "Dictionary<String, Int>").errorDescription
                == "The argument \"f\" has a value of type Dictionary<String, Int>, which cannot be sent as an argument."
        )
        #expect(
            ArgumentEncodingError.lineBreakInName("n").errorDescription
                == "The argument \"n\" has a line break in its name or file name."
        )
        #expect(
            ArgumentEncodingError.unreadableFile("p", url: Self.file, reason: "No such file.").errorDescription
                == "The file \"/tmp/missing.txt\" for argument \"p\" cannot be read: No such file."
        )
    }

    @Test func onlyUnreadableFileHasAFileURL() {
        let unreadable = ArgumentEncodingError.unreadableFile("p", url: Self.file, reason: "r")
        #expect(unreadable.isUnreadableFile)
        #expect(unreadable.fileURL == Self.file)
        let others: [ArgumentEncodingError] = [
            .emptyKey, .fileNotAllowed("p"), .nonFiniteNumber("p"), .unsupportedValue("p", type: "T"),
            .lineBreakInName("p"),
        ]
        for error in others {
            #expect(!error.isUnreadableFile)
            #expect(error.fileURL == nil)
        }
    }

    @Test func canBeMatchedInACatchClause() {
        do {
            _ = try FormEncoder().encode(["doc": .file(Self.file)])
            Issue.record("expected an error")
        } catch let error as ArgumentEncodingError where error == .fileNotAllowed("doc") {
            #expect(error.key == "doc")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }
}
