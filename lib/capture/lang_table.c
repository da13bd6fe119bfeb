/*
 * lang_table.c - --lang's runtimes (lang_table.h): Debian 12's paths and
 * probe names, kept apart from the parser that reads them.
 */
#include "lang_table.h"

#include <string.h>

/*
 * The runtimes' entry/return probes as Debian 12 builds them, keyed by
 * the function's name: php's function__entry(function, file, line,
 * class, scope), python's function__entry(file, function, line) and
 * ruby's method__entry(class, method, file, line).
 */
static const struct ot_lang lang_presets[] = {
	{ "php", "usdt:/usr/bin/php8.2:php:function__entry..function__return@arg1:str",
	  "/usr/bin/php8.2", "php8.2", "USE_ZEND_DTRACE", NULL },
	{ "python", "usdt:/usr/bin/python3.11:python:function__entry..function__return@arg2:str",
	  "/usr/bin/python3.11", "python3.11", NULL, NULL },
	/* Its VM fires them from its trace instructions: only while a
	 * TracePoint asks for those events. */
	{ "ruby", "usdt:libruby-3.1.so.3.1:ruby:method__entry..method__return@arg2:str",
	  "libruby-3.1.so.3.1", "ruby 3.1", NULL,
	  "ruby 3.1 fires method__entry for a Ruby method only while a TracePoint for :call "
	  "is enabled in the process, and method__return only while one for :return is: "
	  "enable TracePoint.new(:call, :return) {}.enable (for a script, ruby -r./tp.rb with "
	  "that line in tp.rb)" },
};

const struct ot_lang *ot_lang_find(const char *lang)
{
	size_t i;

	for (i = 0; lang && i < sizeof(lang_presets) / sizeof(lang_presets[0]); i++)
		if (!strcmp(lang, lang_presets[i].lang))
			return &lang_presets[i];
	return NULL;
}

const char *ot_lang_preset(const char *lang)
{
	const struct ot_lang *l = ot_lang_find(lang);

	return l ? l->terms : NULL;
}
