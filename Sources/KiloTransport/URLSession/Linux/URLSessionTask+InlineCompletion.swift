#if canImport(FoundationNetworking)
    @_spi(Reflection) import Swift
    import FoundationNetworking

    extension URLSessionTask {
        /// Whether ``completeInline()`` can ask this platform's tasks to call their completion
        /// handlers inline.
        static var completesInline: Bool {
            inlineCompletionOffset != nil
        }

        /// Asks the session to call the task's completion handler on its own work queue, at once,
        /// instead of adding it to the session's delegate queue: what `URLSession.data(for:)` asks
        /// for its own tasks.
        ///
        /// swift-corelibs-foundation keeps this choice in a stored property that only its own
        /// code may set (`_callCompletionHandlerInline`), so Kilo finds the property in the
        /// runtime's metadata of the class, by name and type, and sets it there. Where no such
        /// property is found, it does nothing, and the completion handler runs on the delegate
        /// queue as before.
        ///
        /// Call it after the task is made and before it is resumed: nothing else reads or writes
        /// the property until then. The completion handler must return quickly and must not make,
        /// resume or cancel a task of the session, which would wait for the work queue it runs on.
        func completeInline() {
            guard let offset = Self.inlineCompletionOffset else { return }
            withExtendedLifetime(self) {
                Unmanaged.passUnretained(self).toOpaque().storeBytes(of: true, toByteOffset: offset, as: Bool.self)
            }
        }

        /// The offset, in a task's instance, of swift-corelibs-foundation's stored property
        /// `_callCompletionHandlerInline: Bool`, or `nil` if there is no such property.
        private static let inlineCompletionOffset: Int? = {
            var found: Int?
            let classType = _EachFieldOptions(rawValue: 1 << 0)  // `.classType`, a `static var`
            _ = _forEachField(of: URLSessionTask.self, options: classType) { name, offset, type, _ in
                guard String(cString: name) == "_callCompletionHandlerInline", type == Bool.self else { return true }
                found = offset
                return false
            }
            return found
        }()
    }
#endif
